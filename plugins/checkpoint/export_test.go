package checkpoint

// Texts are the model-visible texts of the two tools, for the docs test.
var Texts = []string{checkpointsDescription, checkpointsParameters, rewindDescription, rewindParameters, section}
