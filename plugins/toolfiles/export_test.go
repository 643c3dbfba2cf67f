package toolfiles

// Texts are the model-visible texts of the four tools, for the docs test.
var Texts = []string{moveDescription, moveParameters, moveSection, deleteDescription, deleteParameters, deleteSection,
	mkdirDescription, mkdirParameters, mkdirSection, fileInfoDescription, fileInfoParameters, fileInfoSection}
