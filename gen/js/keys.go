package js

import (
	"cmp"
	"slices"
	"strconv"
)

// ArrayIndex reports whether JavaScript reads the property key k as an
// array index: the canonical decimal of an integer from 0 to 2³²−2 ("7",
// "10", not "07", "-1" or "4294967295").
func ArrayIndex(k string) bool {
	n, err := strconv.ParseUint(k, 10, 32)
	return err == nil && n < 1<<32-1 && strconv.FormatUint(n, 10) == k
}

// KeyOrder returns items, whose keys key gives, in the order JavaScript
// enumerates the own properties of an object that is given those keys in
// turn — Object.keys, JSON.stringify, JSON.parse and zod's object shapes:
// the array indices first, ascending, then the other keys in the order
// given. It returns items itself when that is the order already.
func KeyOrder[T any](items []T, key func(T) string) []T {
	var index, other []T
	for _, it := range items {
		if ArrayIndex(key(it)) {
			index = append(index, it)
		} else {
			other = append(other, it)
		}
	}
	if len(index) == 0 {
		return items
	}
	slices.SortStableFunc(index, func(a, b T) int {
		x, _ := strconv.ParseUint(key(a), 10, 32)
		y, _ := strconv.ParseUint(key(b), 10, 32)
		return cmp.Compare(x, y)
	})
	return append(index, other...)
}
