package toolfs

import (
	"encoding/json"
	"strconv"
)

// The model-facing schemas, byte for byte with the key order of contract
// §6.2. The list description names the configured listMaxEntries and the
// read schema the configured readLimit.

func listDescription(maxEntries int) string {
	return "List the direct children of one directory, with their type. Entries are directories first, then files, each alphabetical; up to " +
		strconv.Itoa(maxEntries) + " are returned from the requested offset, and the footer gives the complete count plus a next offset when more remain. It includes subdirectories and is the tool for seeing one directory's contents."
}

const listParameters = `{"type":"object","properties":{"path":{"type":"string","description":"Directory to list. Defaults to the session workspace; a relative path resolves against it."},"offset":{"type":"number","description":"1-based first entry to return. Defaults to 1; use the footer value to continue."}}}`

const readDescription = "Read a UTF-8 text file and return line-numbered content."

func readParameters(readLimit int) json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"file_path":{"type":"string","description":"Path to read, resolved by the filesystem backend."},"offset":{"type":"number","description":"1-based first line to return. Defaults to 1."},"limit":{"type":"number","description":"Maximum number of lines to return. Defaults to ` +
		strconv.Itoa(readLimit) + `."}},"required":["file_path"]}`)
}

const writeDescription = "Create or fully replace a UTF-8 text file."

const writeParameters = `{"type":"object","properties":{"file_path":{"type":"string","description":"Path to write, resolved by the filesystem backend."},"content":{"type":"string","description":"Full UTF-8 text content to write."}},"required":["file_path","content"]}`

const editDescription = "Edit an existing UTF-8 text file by replacing literal text."

const editParameters = `{"type":"object","properties":{"file_path":{"type":"string","description":"Path to edit, resolved by the filesystem backend."},"old_string":{"type":"string","description":"Literal text to replace. Must match exactly."},"new_string":{"type":"string","description":"Literal replacement text. Use an empty string to delete the match."},"replace_all":{"type":"boolean","description":"Replace all matches. Defaults to false; when false, old_string must appear exactly once."}},"required":["file_path","old_string","new_string"]}`

// Output schemas (contract §6.2 table): every object closed, every key
// required.

const listOutput = `{"type":"object","properties":{"path":{"type":"string"},"offset":{"type":"integer"},"entries":{"type":"array","items":{"type":"object","properties":{"name":{"type":"string"},"type":{"enum":["file","directory","other"]}},"required":["name","type"],"additionalProperties":false}},"totalEntries":{"type":"integer"},"counts":{"type":"object","properties":{"directories":{"type":"integer"},"files":{"type":"integer"},"other":{"type":"integer"}},"required":["directories","files","other"],"additionalProperties":false}},"required":["path","offset","entries","totalEntries","counts"],"additionalProperties":false}`

// readOutput is a text window, or an image (read of a PNG, JPEG, GIF or
// WebP file up to readImageMaxBytes; data is base64 in JSON).
const readOutput = `{"anyOf":[{"type":"object","properties":{"path":{"type":"string"},"offset":{"type":"integer"},"lines":{"type":"array","items":{"type":"object","properties":{"number":{"type":"integer"},"text":{"type":"string"}},"required":["number","text"],"additionalProperties":false}},"totalLines":{"type":["integer","null"]}},"required":["path","offset","lines","totalLines"],"additionalProperties":false},{"type":"object","properties":{"path":{"type":"string"},"mimeType":{"enum":["image/png","image/jpeg","image/gif","image/webp"]},"data":{"type":"string"}},"required":["path","mimeType","data"],"additionalProperties":false}]}`

const writeOutput = `{"type":"object","properties":{"path":{"type":"string"},"operation":{"enum":["create","update"]},"before":{"type":["string","null"]},"after":{"type":"string"}},"required":["path","operation","before","after"],"additionalProperties":false}`

const editOutput = `{"type":"object","properties":{"path":{"type":"string"},"before":{"type":"string"},"after":{"type":"string"}},"required":["path","before","after"],"additionalProperties":false}`
