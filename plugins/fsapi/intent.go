package fsapi

// IntentKind is the kind of a [WriteIntent]. Contract §2.1.
type IntentKind int

const (
	// CreateIfAbsent creates the target and refuses to overwrite an existing
	// file (FS_NOT_OBSERVED).
	CreateIfAbsent IntentKind = iota + 1
	// ReplaceIfVersion replaces the target only while its version equals the
	// intent's Version (FS_STALE_VERSION otherwise, or when it is gone).
	ReplaceIfVersion
)

// String returns "create-if-absent" or "replace-if-version".
func (k IntentKind) String() string {
	switch k {
	case CreateIfAbsent:
		return "create-if-absent"
	case ReplaceIfVersion:
		return "replace-if-version"
	}
	return "unknown"
}

// WriteIntent is the precondition of a write. A nil *WriteIntent means an
// unconditional create-or-overwrite, a third state rather than a third kind.
// Version and Digest are read only for ReplaceIfVersion: the file must be
// at Version, or, when Digest is not zero, hold exactly the content Digest
// digests ([D24]). Contract §2.1, §3.7 step 4.
type WriteIntent struct {
	Kind    IntentKind
	Version Version
	Digest  Digest
}

// EditGuard is the expected version of an edit; a nil *EditGuard means
// unguarded. The file must be at Version, or, when Digest is not zero, hold
// exactly the content Digest digests ([D24]). Contract §2.1, §3.8 step 4.
type EditGuard struct {
	Version Version
	Digest  Digest
}

// EditRequest is a literal edit: replace OldString by NewString, once (it must
// match exactly once) or everywhere with ReplaceAll. Both strings are
// compared after CRLF→LF. Contract §3.8.
type EditRequest struct {
	OldString  string
	NewString  string
	ReplaceAll bool
}

// Operation says whether a write created or replaced its target.
type Operation string

const (
	// OperationCreate is a write that created the file.
	OperationCreate Operation = "create"
	// OperationUpdate is a write that replaced an existing file.
	OperationUpdate Operation = "update"
)

// WriteOutcome is the result of a successful WriteText (contract §2.1).
//
// Version is the file's version after the write (`missing:<key>` if it vanished
// at once). Before is nil for a create and for an overwrite of a prior file
// that is not text (a NUL anywhere, or invalid UTF-8); otherwise it is the
// prior text without its BOM and with CRLF→LF. After is the supplied content
// with CRLF→LF, not the on-disk bytes.
//
// BasisOmitted reports that the prior file or the content exceeded the diff
// basis bound ([DiffBasis], contract §5.4a [D20]): Before is then nil and
// After empty, and no diff can be computed.
type WriteOutcome struct {
	Operation    Operation
	Version      Version
	Before       *string
	After        string
	BasisOmitted bool
}

// EditOutcome is the result of a successful EditText (contract §2.1, §3.8
// step 11): the new Version and the LF views (BOM removed, CRLF→LF) of the
// file before and after, and Replacements, the number of spans replaced (1
// without ReplaceAll). When the file before or after exceeds the diff basis
// bound ([DiffBasis], contract §5.4a [D20]), Before and After are empty and
// BasisOmitted is true.
type EditOutcome struct {
	Version      Version
	Before       string
	After        string
	Replacements int
	BasisOmitted bool
}
