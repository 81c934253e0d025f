package agent

import (
	"sort"

	"engram/agent/distill"
	"engram/memory"
)

// bestHits searches the stores and returns the best k hits of them all, by
// a score comparable across stores (see mergeHits); skipPinned leaves
// pinned entries out.
func bestHits(stores []distill.Target, query string, history []string, k int, skipPinned bool) []RecalledHit {
	var lists [][]RecalledHit
	opts := memory.RecallOptions{K: k}
	for _, t := range stores {
		var hits []RecalledHit
		for _, h := range t.Store.Recall(query, history, opts) {
			if !skipPinned || !h.Entry.Pinned {
				hits = append(hits, RecalledHit{Hit: h, Scope: t.Scope})
			}
		}
		lists = append(lists, hits)
	}
	return mergeHits(lists, k)
}

// recallAll is the best k hits of query over the stores, pinned entries
// included and no history: the recall of the memory tools and the pipeline.
func recallAll(stores []distill.Target, query string, k int) []RecalledHit {
	return bestHits(stores, query, nil, k, false)
}

// mergeHits merges the hits of several stores, each list best first, into
// the best k. A BM25 score depends on its index's statistics (a word
// common in a small project store weighs little there, the same word rare
// in a large global store weighs much), so raw scores of two stores are not
// comparable. Each store's scores are therefore normalised by its best
// (which keeps every store's own order and relative gaps), and weighted by
// what is comparable across stores: how many of the query's words a hit
// matched, relative to the hit that matched most. Score becomes that
// comparable score, in (0, 1]; ties keep store order (global first).
func mergeHits(lists [][]RecalledHit, k int) []RecalledHit {
	maxTerms := 0
	for _, l := range lists {
		for _, h := range l {
			maxTerms = max(maxTerms, len(h.Terms))
		}
	}
	var out []RecalledHit
	for _, l := range lists {
		top := 0.0
		for _, h := range l {
			top = max(top, h.Score)
		}
		for _, h := range l {
			norm := 1.0
			if top > 0 {
				norm = h.Score / top
			}
			cover := 1.0
			if maxTerms > 0 {
				cover = float64(max(len(h.Terms), 1)) / float64(maxTerms)
			}
			h.Score = norm * cover
			out = append(out, h)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Score > out[j].Score })
	if len(out) > k {
		out = out[:k]
	}
	return out
}

// recall runs auto-recall for a turn over the global store and the chat's
// project store, pinned entries left out (they are in the prompt anyway).
func (a *Agent) recall(c Chat, text string, proj *projectState, cfg Config) []RecalledHit {
	history := recentUserMessages(c.Messages, recentUserHistory)
	return bestHits(a.stores(proj), text, history, cfg.RecallTopK, true)
}

// recentUserMessages returns up to n user messages before the last
// message (the current one), oldest first, not reaching past a summary.
func recentUserMessages(msgs []Message, n int) []string {
	var out []string
	for i := len(msgs) - 2; i >= 0 && len(out) < n; i-- {
		if msgs[i].Role == RoleSummary {
			break
		}
		if msgs[i].Role == RoleUser {
			out = append(out, msgs[i].Text)
		}
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

// markUsed records that recalled memories went into a prompt.
func (a *Agent) markUsed(hits []RecalledHit, proj *projectState) {
	var g, p []string
	for _, h := range hits {
		if h.Scope == ScopeProject {
			p = append(p, h.Entry.ID)
		} else {
			g = append(g, h.Entry.ID)
		}
	}
	if len(g) > 0 {
		_ = a.global.st.MarkUsed(g...) // bookkeeping only; a failure shows in the store's Err
	}
	if len(p) > 0 && proj != nil {
		_ = proj.store.st.MarkUsed(p...)
	}
}
