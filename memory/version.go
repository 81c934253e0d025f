package memory

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"strconv"
	"strings"
	"time"
)

// Rev is the version of one change of an entry: the device that made it
// (the replica of the store that made it, see Vector) and that device's
// counter at the time. A device's counter only goes up;
// it follows the device's clock in milliseconds where that is ahead, so it
// also orders the device's changes across restarts, but it is never
// compared with another device's counter to decide what is newer. The
// zero Rev is an entry no device has stamped yet (a version 1 file, a hand
// edit), which the next write stamps. Sum is a checksum of the versioned
// content as stamped, so a hand edit that leaves the rev as it was is
// still told from the version it started from, on every device. In the
// file a Rev reads "device:N:sum" (sum in hex).
type Rev struct {
	Device string
	N      uint64
	Sum    uint32
}

// IsZero reports the unstamped Rev.
func (r Rev) IsZero() bool { return r.N == 0 }

// String is "device:N:sum", or "" for the zero Rev.
func (r Rev) String() string {
	if r.IsZero() {
		return ""
	}
	return string(r.appendTo(nil))
}

func (r Rev) appendTo(b []byte) []byte {
	b = append(b, r.Device...)
	b = append(b, ':')
	b = strconv.AppendUint(b, r.N, 10)
	b = append(b, ':')
	return strconv.AppendUint(b, uint64(r.Sum), 16)
}

// MarshalText writes String.
func (r Rev) MarshalText() ([]byte, error) { return []byte(r.String()), nil }

// UnmarshalText reads what MarshalText writes; "" is the zero Rev.
func (r *Rev) UnmarshalText(b []byte) error {
	rev, err := ParseRev(string(b))
	if err != nil {
		return err
	}
	*r = rev
	return nil
}

// ParseRev reads a Rev written as "device:N:sum" or "device:N" (white
// space around it is ignored); "" is the zero Rev.
func ParseRev(s string) (Rev, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return Rev{}, nil
	}
	// The error is made only when it is returned: an open parses the revs
	// of every entry.
	bad := func() (Rev, error) { return Rev{}, fmt.Errorf("rev %q: want device:counter:sum", s) }
	dev, rest, ok := strings.Cut(s, ":")
	if !ok || !validID(dev) {
		return bad()
	}
	n, sum, hasSum := strings.Cut(rest, ":")
	v, err := strconv.ParseUint(n, 10, 64)
	if err != nil || v == 0 {
		return bad()
	}
	r := Rev{Device: dev, N: v}
	if hasSum {
		x, err := strconv.ParseUint(sum, 16, 32)
		if err != nil {
			return bad()
		}
		r.Sum = uint32(x)
	}
	return r, nil
}

// versionSum is the checksum of what a person edits in an entry (FNV-1a):
// its ID, kind, text, source, links, pin and whether it is deleted. Times
// are left out: clamping a time from the future is no edit.
func versionSum(e Entry) uint32 {
	h := uint32(2166136261)
	add := func(s string) {
		for i := 0; i < len(s); i++ {
			h = (h ^ uint32(s[i])) * 16777619
		}
		h = (h ^ 0xff) * 16777619
	}
	add(e.ID)
	add(string(e.Kind))
	add(e.Text)
	add(string(e.Source))
	add(e.Supersedes)
	add(e.SupersededBy)
	if e.Pinned {
		add("p")
	}
	if !e.Deleted.IsZero() {
		add("d")
	}
	return h | 1 // never 0, which means "no sum" (a rev written without one)
}

// handEdited reports whether e was changed since it was stamped: its
// content no longer matches its Rev's sum.
func handEdited(e Entry) bool { return e.Rev.Sum != 0 && e.Rev.Sum != versionSum(e) }

// Vector says how far a copy of the store has seen each device's changes:
// every change of device d with counter up to v[d] is in it, or was
// replaced in it by a later one. It is written in the file as "seen".
//
// The invariant every store keeps: a file's seen never covers a change
// the file's own content does not reflect (as a live entry, a later
// version of it, or a tombstone), so a copy lacking an entry it had seen
// deleted it. A store takes the copies' Vectors as they are and raises
// only its own replica's entry, over changes it can prove it still holds:
// the replica is named by the journal, which holds every change of it
// (see journal), and a store that cannot prove that (its journal was lost,
// compacted past what the file holds, copied from another machine, or
// another machine stamps with the same replica) stamps with a new replica
// from then on (see vetCopyLocked); a replica two machines stamped with is
// listed in the file as forked, and no Vector's word on it counts (see
// forkedLocked). The one exception is a tombstone
// dropped after TombstoneTTL: a copy that has not been merged for that
// long may bring the entry back.
//
// The file is made to be synced by tools that know nothing of it
// (Syncthing, Dropbox, Nextcloud, git), so a store must merge any copy of
// it, in any order, without trusting wall clocks or modification times:
// the technique of state-based replication, per-device counters (Rev) and
// a version vector. A hybrid logical clock per entry would order changes
// as well, but could not say whether a copy that lacks an entry had ever
// seen it; the vector can (see mergeCopy). Merging a copy (Reload, Open, a
// conflict copy, MergeFile, Repair) follows the same rules everywhere.
type Vector map[string]uint64

// Covers reports whether the copy had seen the change r. An unstamped
// change is never covered: nobody can claim to have seen it.
func (v Vector) Covers(r Rev) bool { return !r.IsZero() && v[r.Device] >= r.N }

// merge raises v to cover everything o covers.
func (v Vector) merge(o Vector) {
	for d, n := range o {
		if n > v[d] {
			v[d] = n
		}
	}
}

// errBadDevice: a device ID that cannot serve in a Rev.
var errBadDevice = errors.New("invalid device ID (want 1 to 64 letters, digits, '-' and '_')")

// mergeResult is the outcome of merging a copy of the store into the
// store's records.
type mergeResult struct {
	recs map[string]Entry
	// stamp lists the entries whose version the merge made (a hand edit or
	// deletion found in the copy, an unstamped entry): they need a Rev of
	// this device and a place in the journal.
	stamp []string
	// missing says the copy lacks changes the store has: the file should
	// be written again so it holds them.
	missing bool
}

// mergeCopy merges a copy of the store (its entries and Vector) into the
// store's records mem; memSaw says whether mem had seen a version of an
// entry (the store's Vector covers it, or at Open the journal's record of
// it had seen it); mem is not modified. The
// rules are the same whichever side is the store, so two devices merging
// each other's copies agree:
//
//   - An entry in one side only is new to the other unless the other had
//     seen its version (its Vector covers the Rev): then the other side
//     deleted it (a hand deletion, or a tombstone that expired) and it is
//     not brought back. A hand deletion found in the copy becomes a
//     tombstone, so it spreads.
//   - An entry on both sides with the same Rev is one version: a
//     different content means the copy was edited by hand, and the copy's
//     content wins and is stamped anew.
//   - With different Revs, a side that had seen the other's version holds
//     the later change and wins, as does a version whose Prev is the
//     other; of two changes by one device, the later. If neither had (concurrent edits on two
//     devices), the later Updated wins, then a live version over a
//     deletion, then the greater Rev; the losing text is kept as superseded
//     history under an ID derived from its content, the same on every
//     device.
//   - A tombstone the store inferred from a copy's absence (Absent) over a
//     version stamped with a replica since found forked loses to that
//     version: the copy only seemed to have seen it.
//   - Uses and LastUsed take the larger, Created the earlier: they are
//     not versioned.
func mergeCopy(mem map[string]Entry, memSaw func(id string, r Rev) bool, disk []Entry, diskSeen Vector, forked map[string]bool, now time.Time) mergeResult {
	// unfounded says a tombstone was inferred from a forked replica's
	// word (see Entry.Absent) over the live version o.
	unfounded := func(t, o Entry) bool {
		return t.Absent && !t.Deleted.IsZero() && o.Deleted.IsZero() && !o.Rev.IsZero() && t.Prev == o.Rev && forked[o.Rev.Device]
	}
	res := mergeResult{recs: make(map[string]Entry, max(len(mem), len(disk)))}
	saw := func(d Entry) bool { return !d.Rev.IsZero() && memSaw(d.ID, d.Rev) }
	var dropped map[string]bool
	for _, d := range disk {
		m, ok := mem[d.ID]
		if !ok {
			if saw(d) {
				if dropped == nil {
					dropped = map[string]bool{}
				}
				dropped[d.ID] = true // deleted here; the tombstone is gone
				continue
			}
			if _, taken := res.recs[d.ID]; !taken {
				res.recs[d.ID] = d
			}
			if d.Rev.IsZero() {
				res.stamp = append(res.stamp, d.ID)
			}
			continue
		}
		edited := handEdited(d)
		switch {
		case d.Rev.IsZero() && !m.Rev.IsZero():
			// A version from before revs (a version 1 copy, an old export)
			// against a stamped one: an older one is stale and goes; one as
			// new or newer (a hand edit of an old copy) is a concurrent
			// change.
			if d.Updated.Before(m.Updated) {
				res.recs[d.ID] = unversioned(m, d)
			} else {
				res.concurrent(d, m, mem)
				if res.recs[d.ID].Rev.IsZero() {
					res.stamp = append(res.stamp, d.ID)
				}
			}
		case edited && (d.Rev == m.Rev || diskSeen.Covers(m.Rev)):
			// Edited by hand over the version the store has, or a later one.
			res.recs[d.ID] = unversioned(d, m)
			res.stamp = append(res.stamp, d.ID)
		case edited:
			// Edited by hand over a version older than the store's:
			// concurrent with the store's.
			res.concurrent(d, m, mem)
		case d.Rev == m.Rev:
			if !sameContent(d, m) || d.Rev.IsZero() {
				res.stamp = append(res.stamp, d.ID) // edited by hand in the copy
				res.recs[d.ID] = unversioned(d, m)
				break
			}
			// One version, its times perhaps clamped by a reader whose
			// clock was behind the writer's: the earlier times, on every
			// device.
			res.recs[d.ID] = earlierTimes(unversioned(d, m), m)
		case unfounded(d, m):
			res.recs[d.ID] = unversioned(m, d)
			res.missing = true
		case unfounded(m, d):
			res.recs[d.ID] = unversioned(d, m)
		case diskSeen.Covers(m.Rev) && !saw(d):
			res.recs[d.ID] = unversioned(d, m)
		case saw(d) && !diskSeen.Covers(m.Rev):
			res.recs[d.ID] = unversioned(m, d)
			res.missing = true
		case !m.Rev.IsZero() && d.Prev == m.Rev:
			res.recs[d.ID] = unversioned(d, m) // d replaced the store's version
		case !d.Rev.IsZero() && m.Prev == d.Rev:
			res.recs[d.ID] = unversioned(m, d) // the store's version replaced d
			res.missing = true
		case d.Rev.Device == m.Rev.Device && !d.Rev.IsZero() && !m.Rev.IsZero():
			// One device's changes come in order: the later one saw the other.
			if d.Rev.N > m.Rev.N {
				res.recs[d.ID] = unversioned(d, m)
			} else {
				res.recs[d.ID] = unversioned(m, d)
				res.missing = true
			}
		default:
			res.concurrent(d, m, mem)
		}
	}
	for id, m := range mem {
		if _, ok := res.recs[id]; ok {
			continue
		}
		if dropped[id] {
			continue
		}
		switch {
		case !diskSeen.Covers(m.Rev):
			res.missing = true // the copy never had it
		case m.Deleted.IsZero():
			m.Deleted, m.Updated, m.Absent = now, now, true
			res.stamp = append(res.stamp, id) // deleted by hand in the copy
		}
		res.recs[id] = m
	}
	return res
}

// sawNothing is the memSaw of records that had seen nothing (see
// mergeCopy): nothing the copy holds is taken for deleted.
func sawNothing(string, Rev) bool { return false }

// concurrent resolves two versions of an entry that did not see each
// other: d from the copy, m from the store (see mergeCopy). A hand-edited
// winner from the copy is stamped.
func (res *mergeResult) concurrent(d, m Entry, mem map[string]Entry) {
	win, lose := m, d
	if concurrentCompare(d, m) > 0 {
		win, lose = d, m
	}
	if win.Rev == m.Rev && !handEdited(d) {
		res.missing = true
	} else if handEdited(win) {
		res.stamp = append(res.stamp, win.ID)
	}
	res.recs[d.ID] = unversioned(win, lose)
	if lose.Text != win.Text && lose.Deleted.IsZero() && lose.SupersededBy == "" {
		h := lose
		h.ID = contentID("conflict", lose.ID, lose.Text)
		h.Pinned, h.Supersedes, h.SupersededBy = false, "", lose.ID
		h.Rev = Rev{} // a new entry: whoever keeps it stamps it
		if _, taken := mem[h.ID]; !taken {
			res.recs[h.ID] = h
			res.stamp = append(res.stamp, h.ID)
		}
	}
}

// unversioned returns win with the unversioned fields merged from other:
// the larger Uses and LastUsed, the earlier Created.
func unversioned(win, other Entry) Entry {
	if other.LastUsed.After(win.LastUsed) {
		win.LastUsed = other.LastUsed
	}
	win.Uses = max(win.Uses, other.Uses)
	if !other.Created.IsZero() && other.Created.Before(win.Created) {
		win.Created = other.Created
	}
	return win
}

// concurrentCompare orders two concurrent versions of an entry, the
// winner greater: the later Updated (times from the future are clamped on
// read), then live before deleted, then Rev, then text, so every device
// picks the same.
func concurrentCompare(a, b Entry) int {
	if c := a.Updated.Compare(b.Updated); c != 0 {
		return c
	}
	if c := cmp.Compare(boolRank(a.Deleted.IsZero()), boolRank(b.Deleted.IsZero())); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Rev.Device, b.Rev.Device); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Rev.N, b.Rev.N); c != 0 {
		return c
	}
	return cmp.Compare(a.Text, b.Text)
}

// sameContent reports whether two versions of an entry agree on what a
// person edits (what versionSum covers): everything but the times, Uses
// and the Revs.
func sameContent(a, b Entry) bool {
	return a.ID == b.ID && a.Kind == b.Kind && a.Text == b.Text && a.Source == b.Source &&
		a.Pinned == b.Pinned && a.Supersedes == b.Supersedes && a.SupersededBy == b.SupersededBy &&
		a.Deleted.IsZero() == b.Deleted.IsZero()
}

// earlierTimes returns e with the earlier of its and o's Updated and
// Deleted times.
func earlierTimes(e, o Entry) Entry {
	if o.Updated.Before(e.Updated) {
		e.Updated = o.Updated
	}
	if !o.Deleted.IsZero() && o.Deleted.Before(e.Deleted) {
		e.Deleted = o.Deleted
	}
	return e
}

// sameVersion reports whether two versions of an entry agree on what is
// versioned: everything but Uses, LastUsed and Created.
func sameVersion(a, b Entry) bool {
	return a.ID == b.ID && a.Kind == b.Kind && a.Text == b.Text && a.Source == b.Source &&
		a.Pinned == b.Pinned && a.Supersedes == b.Supersedes && a.SupersededBy == b.SupersededBy &&
		a.Updated.Equal(b.Updated) && a.Deleted.Equal(b.Deleted) && a.Absent == b.Absent
}

// cloneVector copies v (nil stays an empty, writable Vector).
func cloneVector(v Vector) Vector {
	out := maps.Clone(v)
	if out == nil {
		out = Vector{}
	}
	return out
}
