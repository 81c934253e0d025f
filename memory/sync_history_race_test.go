//go:build race

package memory

// historiesLong is how many histories TestSyncHistoriesLoseNothing runs:
// fewer under the race detector, which makes them about five times slower.
const historiesLong = 30
