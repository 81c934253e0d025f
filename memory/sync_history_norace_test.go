//go:build !race

package memory

// historiesLong is how many histories TestSyncHistoriesLoseNothing runs.
const historiesLong = 150
