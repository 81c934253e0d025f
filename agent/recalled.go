package agent

// resolveRecalled fills the recalled (and pinned) memories of a chat's messages from
// the stores (their current version, history included); a memory that was
// forgotten keeps only its ID and kind.
func (a *Agent) resolveRecalled(c Chat) Chat {
	var proj *storeState
	if c.Project != "" {
		if p, err := a.pinned(c.Project); err == nil {
			p.mu.Lock()
			proj = p.store
			p.mu.Unlock()
		}
	}
	resolve := func(in []RecalledHit) []RecalledHit {
		if len(in) == 0 {
			return in
		}
		hits := make([]RecalledHit, len(in))
		for j, h := range in {
			ss := a.global
			if h.Scope == ScopeProject {
				ss = proj
			}
			if h.Entry.Text == "" && ss != nil {
				if e, ok := ss.st.Get(h.Entry.ID); ok && e.Deleted.IsZero() {
					h.Entry = e
				}
			}
			hits[j] = h
		}
		return hits
	}
	for i, m := range c.Messages {
		c.Messages[i].Recalled = resolve(m.Recalled)
		c.Messages[i].Pinned = resolve(m.Pinned)
	}
	return c
}
