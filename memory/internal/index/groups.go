package index

import (
	"cmp"
	"slices"
)

// joinGroup puts a slot (its entry set) in its creation group, in order.
func (ix *Index) joinGroup(slot int32) {
	key := ix.slots[slot].group
	g := ix.groups[key]
	i, _ := slices.BinarySearchFunc(g, slot, ix.groupOrder)
	g = slices.Insert(g, i, slot)
	ix.groups[key] = g
	ix.relink(g, i-1, i+2)
}

// groupOrder orders the entries of a group by creation time, then by first
// insertion.
func (ix *Index) groupOrder(a, b int32) int {
	x, y := &ix.slots[a], &ix.slots[b]
	if c := x.e.Created.Compare(y.e.Created); c != 0 {
		return c
	}
	return cmp.Compare(x.seq, y.seq)
}

// leaveGroup takes a slot out of its creation group.
func (ix *Index) leaveGroup(slot int32) {
	key := ix.slots[slot].group
	g := ix.groups[key]
	if i := slices.Index(g, slot); i >= 0 {
		g = slices.Delete(g, i, i+1)
		ix.relink(g, i-1, i+1)
	}
	if len(g) == 0 {
		delete(ix.groups, key)
	} else {
		ix.groups[key] = g
	}
}

// relink sets the neighbours (near) of the slots g[from:to] that exist.
func (ix *Index) relink(g []int32, from, to int) {
	for i := max(from, 0); i < min(to, len(g)); i++ {
		var near [2]int32
		if i > 0 {
			near[0] = g[i-1] + 1
		}
		if i+1 < len(g) {
			near[1] = g[i+1] + 1
		}
		ix.slots[g[i]].near = near
	}
}
