package index

import "math/bits"

// keyTable maps non-zero 64-bit keys (packed CJK runes) to term ids with
// open addressing and linear probing: one probe is usually one cache line,
// which matters when indexing a large corpus of Chinese text, where nearly
// every character means a lookup in a table of hundreds of thousands of
// bigrams. Reads may run concurrently; writes need exclusive access.
type keyTable struct {
	slots []keySlot
	n     int
	shift uint
}

type keySlot struct {
	key uint64 // 0: empty
	id  int32
}

func (t *keyTable) home(key uint64) int {
	return int((key * 0x9e3779b97f4a7c15) >> t.shift)
}

// get returns the id stored for key.
func (t *keyTable) get(key uint64) (int32, bool) {
	if t.n == 0 {
		return 0, false
	}
	mask := len(t.slots) - 1
	for i := t.home(key); ; i = (i + 1) & mask {
		s := &t.slots[i]
		if s.key == key {
			return s.id, true
		}
		if s.key == 0 {
			return 0, false
		}
	}
}

// put stores id for key, which must not be in the table yet.
func (t *keyTable) put(key uint64, id int32) {
	if (t.n+1)*2 > len(t.slots) {
		t.grow()
	}
	mask := len(t.slots) - 1
	i := t.home(key)
	for t.slots[i].key != 0 {
		i = (i + 1) & mask
	}
	t.slots[i] = keySlot{key, id}
	t.n++
}

func (t *keyTable) grow() {
	old := t.slots
	size := max(len(old)*2, 64)
	t.slots = make([]keySlot, size)
	t.shift = uint(64 - bits.Len(uint(size-1)))
	t.n = 0
	for _, s := range old {
		if s.key != 0 {
			t.put(s.key, s.id)
		}
	}
}

// keep rebuilds the table with only the entries keep approves.
func (t *keyTable) keep(keep func(key uint64, id int32) bool) {
	old := t.slots
	*t = keyTable{}
	for _, s := range old {
		if s.key != 0 && keep(s.key, s.id) {
			t.put(s.key, s.id)
		}
	}
}
