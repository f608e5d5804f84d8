//! Whole-digest tests.
