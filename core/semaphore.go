package core

// Semaphore is a weighted semaphore with priorities. (Placeholder: the
// implementation lands with the Semaphore work.)
type Semaphore struct{}
