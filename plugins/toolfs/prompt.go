package toolfs

import "github.com/dsh-go/dsh/plugins/tools"

// sections are the prompt sections of the four tools, byte for byte
// (contract §6.3).
var sections = []tools.Section{
	{Name: "tool:list", Order: 99, Text: "Use the list tool — not shell ls — to see what a directory contains. It returns the direct children of one directory, files and subdirectories alike, and defaults to the session workspace, so it is the first step for orienting in an unfamiliar project. When a result is capped, continue with the offset named in its footer."},
	{Name: "tool:read", Order: 100, Text: "Use the read tool — not shell commands like cat — to inspect text files. Results include line numbers. Use offset and limit to continue reading large files."},
	{Name: "tool:write", Order: 101, Text: "Use the write tool to create files or completely replace file contents. Existing files are overwritten, so read an existing file first (the default fs-policy requires it) and prefer edit for targeted changes."},
	{Name: "tool:edit", Order: 102, Text: "Use the edit tool for targeted changes to existing UTF-8 text files. It replaces literal old_string with new_string; by default old_string must appear exactly once. If old_string appears multiple times, provide a more specific old_string or set replace_all to true. Read the file first (the default fs-policy requires it), unless you just created or edited it in this session."},
}
