//! Golden sessions: the session file format (replay and docs generation build on it).
