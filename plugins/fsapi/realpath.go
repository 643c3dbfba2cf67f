package fsapi

// RealPather is the optional capability of reporting a target's real
// location (contract §2.2), for guards that must not be bypassed through a
// symlink, such as a protected-paths rule. RealPath returns false when the
// provider has no such notion. Consumers still never parse Target.Key.
type RealPather interface {
	RealPath(t Target) (string, bool)
}

// RealPath returns fsys's real location of t when fsys is a [RealPather].
func RealPath(fsys FileSystem, t Target) (string, bool) {
	if r, ok := fsys.(RealPather); ok {
		return r.RealPath(t)
	}
	return "", false
}
