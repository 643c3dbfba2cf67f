package toolfiles

// The model-facing texts of the four tools, byte for byte as
// docs/tools.md gives them.

const moveDescription = "Move or rename a file, a directory or a symlink in one atomic step. Refuses to replace an existing destination unless overwrite is true; a destination ending in / means into that directory."

const moveParameters = `{"type":"object","properties":{"source":{"type":"string","description":"Path to move, resolved by the filesystem backend. A symlink is moved itself, not its target."},"destination":{"type":"string","description":"New path. End it with / to move the source into that existing directory under its own name."},"overwrite":{"type":"boolean","description":"Replace an existing destination file. Defaults to false. A directory is never replaced."}},"required":["source","destination"]}`

const moveSection = "Use the move tool — not a read, write and delete — to rename or move files and directories. A file must have been read (or written) in this session before it is moved, though a read with limit 1 is enough; directories and symlinks need no read."

const deleteDescription = "Delete a file, a symlink (never its target) or an empty directory."

const deleteParameters = `{"type":"object","properties":{"path":{"type":"string","description":"Path to delete, resolved by the filesystem backend."}},"required":["path"]}`

const deleteSection = "Use the delete tool to remove a file, a symlink or an empty directory. A file must have been read (or written) in this session before it is deleted, though a read with limit 1 is enough; a directory must be emptied first."

const mkdirDescription = "Create a directory and any missing parents. Succeeds when it already exists as a directory."

const mkdirParameters = `{"type":"object","properties":{"path":{"type":"string","description":"Directory to create, resolved by the filesystem backend."}},"required":["path"]}`

const mkdirSection = "Use the mkdir tool to create directories; write creates a file's missing parents by itself."

const fileInfoDescription = "Report a path's type, size, permissions, modification time and, for a text file, its line count, without reading it into the conversation."

const fileInfoParameters = `{"type":"object","properties":{"path":{"type":"string","description":"Path to examine, resolved by the filesystem backend. A symlink is reported itself, with what it points to."}},"required":["path"]}`

const fileInfoSection = "Use the file_info tool to learn a file's size or line count before reading it, or whether a path is a file, a directory or a symlink."
