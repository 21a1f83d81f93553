package write

// Reads is the number of files m read from disk.
func (m *Memory) Reads() int64 { return m.reads.Load() }

// Wait waits for the files staged so far.
func (r *Run) Wait() { r.wg.Wait() }
