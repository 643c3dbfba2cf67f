package fsapi

// Target names one file for the fs service. Only providers mint targets,
// through Resolve or ListDir. Contract §2.1.
//
// Key is an opaque identity (for fslocal the real path) used for stale
// guards, locks and the policy map: the same file reached through symlinks or
// `..` has the same Key; consumers compare it and never parse or build it.
// DisplayPath is the lexical, absolute path meant for model and UI output.
type Target struct {
	Key         string
	DisplayPath string
}

// Version is an opaque freshness token of a file's state; consumers compare
// versions for equality and nothing else. The empty Version means "no
// version". fslocal writes `<dev>:<ino>:<size>:<mtimeNs>:<ctimeNs>`
// (contract §3.3).
type Version string
