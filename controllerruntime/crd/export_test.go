package crd

// Remembered returns the number of writes the memos of s's versions
// remember.
func Remembered(s *Set) int {
	n := 0
	for _, v := range s.versions {
		v.memo.mu.Lock()
		n += v.memo.n
		v.memo.mu.Unlock()
	}
	return n
}
