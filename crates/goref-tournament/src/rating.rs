//! Ratings.
