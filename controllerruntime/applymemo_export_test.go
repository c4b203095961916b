package controllerruntime

// SetApplyMemo turns the apply memo on or off alone, and returns a func
// that restores it (TestTheApplyMemoGivesWhatTheFieldManagerGives).
func SetApplyMemo(on bool) (restore func()) {
	was := memoApplies
	memoApplies = on
	return func() { memoApplies = was }
}

// ApplyMemoHits is how many applies the memo has answered so far.
func ApplyMemoHits() int {
	applyMemo.mu.Lock()
	defer applyMemo.mu.Unlock()
	return applyMemo.hits
}
