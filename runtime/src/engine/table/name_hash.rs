//! The hasher of the table's index of names: FNV-1a, a few instructions a byte where SipHash
//! costs some two hundred a lookup. Only the table's own names are ever stored, so a name a
//! request gives cannot crowd the index however it hashes.

use std::hash::{BuildHasherDefault, Hasher};

/// Builds [`NameHasher`]s.
pub(super) type NameHash = BuildHasherDefault<NameHasher>;

/// FNV-1a over the bytes written.
pub(super) struct NameHasher(u64);

impl Default for NameHasher {
    fn default() -> Self {
        NameHasher(0xcbf2_9ce4_8422_2325)
    }
}

impl Hasher for NameHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.0 = (self.0 ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3);
        }
    }

    fn finish(&self) -> u64 {
        self.0
    }
}
