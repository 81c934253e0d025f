package distill

import (
	"errors"
	"fmt"
	"slices"

	"engram/agent/chat"
	"engram/memory"
)

// ErrNoProposal is returned for a forget proposal that is not pending.
var ErrNoProposal = errors.New("no such forget proposal")

// proposalRecord is a forget proposal as ProposalsFile keeps it: which
// memory, not its text nor the model's reason (which may quote it), so a
// memory forgotten meanwhile, by any process, leaves nothing of itself
// there. The reason lives for the run only.
type proposalRecord struct {
	Scope chat.Scope `json:"scope"`
	Dir   string     `json:"dir,omitempty"`
	ID    string     `json:"id"`
}

// Propose holds a forget proposal (replacing one for the same memory),
// kept across restarts.
func (p *Pipeline) Propose(f Forgotten) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.loadProposalsLocked()
	p.proposals = slices.DeleteFunc(p.proposals, func(o Forgotten) bool { return sameMemory(o, f) })
	p.proposals = append(p.proposals, f)
	if err := p.saveProposalsLocked(); err != nil {
		p.notice("", err.Error())
	}
}

func sameMemory(x, y Forgotten) bool {
	return x.Scope == y.Scope && x.Dir == y.Dir && x.Entry.ID == y.Entry.ID
}

// Proposals lists the pending forget proposals, oldest first, each with
// its memory as it is now; one whose memory is no longer live is dropped.
func (p *Pipeline) Proposals() []Forgotten {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.loadProposalsLocked()
	live := p.proposals[:0]
	for _, f := range p.proposals {
		if e, ok := p.lookup(f.Scope, f.Dir, f.Entry.ID); ok {
			f.Entry = e
			live = append(live, f)
		}
	}
	if len(live) != len(p.proposals) {
		p.proposals = live
		if err := p.saveProposalsLocked(); err != nil {
			p.notice("", err.Error())
		}
	}
	return slices.Clone(p.proposals)
}

// DropProposal removes a pending proposal; ErrNoProposal if there was none.
func (p *Pipeline) DropProposal(f Forgotten) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.loadProposalsLocked()
	n := len(p.proposals)
	p.proposals = slices.DeleteFunc(p.proposals, func(o Forgotten) bool { return sameMemory(o, f) })
	if len(p.proposals) == n {
		return ErrNoProposal
	}
	return p.saveProposalsLocked()
}

// lookup is Config.Lookup, or nothing without one.
func (p *Pipeline) lookup(scope chat.Scope, dir, id string) (memory.Entry, bool) {
	if p.cfg.Lookup == nil {
		return memory.Entry{}, false
	}
	e, ok := p.cfg.Lookup(scope, dir, id)
	return e, ok && e.Live()
}

// loadProposalsLocked reads the proposals file once; a missing file is
// none, and a record whose memory is gone is dropped.
func (p *Pipeline) loadProposalsLocked() {
	if p.proposalsLoaded || p.cfg.ProposalsFile == "" {
		return
	}
	p.proposalsLoaded = true
	var recs []proposalRecord
	if err := readJSONFile(p.cfg.ProposalsFile, &recs); err != nil {
		p.notice("", fmt.Sprintf("The proposals to forget memories in %s could not be read: %v", p.cfg.ProposalsFile, err))
		return
	}
	for _, r := range recs {
		if e, ok := p.lookup(r.Scope, r.Dir, r.ID); ok {
			p.proposals = append(p.proposals, Forgotten{Scope: r.Scope, Dir: r.Dir, Entry: e})
		}
	}
}

func (p *Pipeline) saveProposalsLocked() error {
	if p.cfg.ProposalsFile == "" {
		return nil
	}
	recs := make([]proposalRecord, len(p.proposals))
	for i, f := range p.proposals {
		recs[i] = proposalRecord{Scope: f.Scope, Dir: f.Dir, ID: f.Entry.ID}
	}
	return writeJSONFile(p.cfg.ProposalsFile, "forget proposals", recs)
}
