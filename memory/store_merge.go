package memory

import "time"

// mergeDisk merges the entries read from the file into the store's records
// (mem, which it does not modify) and returns the result. related says mem
// was last in step with this file (the store read or wrote it before).
//
//   - An entry only in the file is taken.
//   - An entry on both sides keeps the newer Updated; on a tie the file's
//     (a hand edit does not bump Updated). LastUsed and Uses keep the
//     larger, Created the earlier. If the file's version loses and has a
//     different text, that text is kept as a superseded copy, so a stale
//     edit is not lost (its ID derives from the content: every process
//     merging the same conflict makes the same copy).
//   - An entry only in mem is ambiguous: Engram's own deletions leave
//     tombstones, so either a person deleted it by hand or the file was
//     replaced by a copy that never had it (a sync tool, an editor saving a
//     stale buffer). It is kept as it is when the file is unrelated, when
//     the file is stale (it holds an older version of some entry than mem)
//     or when the entry changed after the file was last modified (diskTime:
//     whoever wrote the file cannot have seen it). Otherwise it was deleted
//     by hand: it becomes a tombstone at now, so the deletion spreads to
//     other writers and can be undone.
func mergeDisk(mem map[string]Entry, disk []Entry, related bool, diskTime, now time.Time) map[string]Entry {
	out := make(map[string]Entry, max(len(mem), len(disk)))
	stale := !related
	for _, d := range disk {
		m, ok := mem[d.ID]
		if !ok {
			out[d.ID] = d
			continue
		}
		if d.Updated.Before(m.Updated) || d.LastUsed.Before(m.LastUsed) || d.Uses < m.Uses {
			stale = true
		}
		if sameEntry(d, m) {
			out[d.ID] = d
			continue
		}
		win := d
		if m.Updated.After(d.Updated) {
			win = m
			if d.Text != m.Text && d.Deleted.IsZero() {
				h := d
				h.ID = contentID("conflict", d.ID, d.Text)
				h.Pinned = false
				h.Supersedes = ""
				h.SupersededBy = d.ID
				if _, taken := mem[h.ID]; !taken {
					out[h.ID] = h
				}
			}
		}
		if d.LastUsed.After(win.LastUsed) {
			win.LastUsed = d.LastUsed
		}
		if m.LastUsed.After(win.LastUsed) {
			win.LastUsed = m.LastUsed
		}
		win.Uses = max(d.Uses, m.Uses)
		if m.Created.Before(win.Created) {
			win.Created = m.Created
		}
		if d.Created.Before(win.Created) {
			win.Created = d.Created
		}
		out[d.ID] = win
	}
	for id, m := range mem {
		if _, ok := out[id]; ok {
			continue
		}
		if !stale && m.Deleted.IsZero() && !m.Updated.After(diskTime) {
			m.Deleted, m.Updated = now, now
		}
		out[id] = m
	}
	return out
}
