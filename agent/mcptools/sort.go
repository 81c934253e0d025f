package mcptools

import (
	"cmp"
	"slices"
)

// sortByName sorts xs by the name key gives each.
func sortByName[T any](xs []T, key func(T) string) {
	slices.SortFunc(xs, func(a, b T) int { return cmp.Compare(key(a), key(b)) })
}
