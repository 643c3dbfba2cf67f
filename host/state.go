package host

// State is an instance's lifecycle state (host §1.4). String returns the
// upper-case wire word (`PENDING`, `ACTIVE`, ...).
type State int

const (
	// StatePending: created, or a required service is missing.
	StatePending State = iota
	// StateLoading: config validated; apply is running.
	StateLoading
	// StateActive: apply returned successfully; its services are visible.
	StateActive
	// StateFailed: config invalid, or apply failed or panicked; everything
	// apply registered was rolled back and the error is kept.
	StateFailed
	// StateUnloading: disposers are running.
	StateUnloading
	// StateDisposed: final; every instance ends here.
	StateDisposed
)

var stateNames = [...]string{"PENDING", "LOADING", "ACTIVE", "FAILED", "UNLOADING", "DISPOSED"}

// String returns the wire word, e.g. "ACTIVE".
func (s State) String() string {
	if int(s) < len(stateNames) && s >= 0 {
		return stateNames[s]
	}
	return "UNKNOWN"
}
