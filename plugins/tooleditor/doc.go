// Package tooleditor is the `tooleditor` plugin: the model-facing tool
// str_replace_editor, with the commands view, create, str_replace and
// insert, and its prompt section (editor.md). It is a compatibility surface
// for models trained on the text-editor tool shape, on the same stack as
// the fs tools: it injects the fs service (fsapi.Key) and the tool registry
// (tools.Key), dispatches fs/write-intent (create) and fs/edit-intent
// (str_replace, insert), emits fs/observed, and never imports a provider, a
// policy or another tool plugin, so read-before-edit, confinement and every
// guard apply to it unchanged.
//
// It is not in the default deployment: plugins/standard links it in and a
// deployment opts in by listing `tooleditor` (editor.md §1).
package tooleditor
