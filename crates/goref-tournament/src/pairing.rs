//! Pairings.
