package write

// Reads is the number of files m read from disk.
func (m *Memory) Reads() int64 { return m.reads.Load() }
