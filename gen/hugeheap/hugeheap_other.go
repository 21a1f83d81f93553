//go:build !linux

package hugeheap

func reserve(int) bool { return false }

var buddyinfoPath string
