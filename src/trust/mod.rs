//! Trust anchors below the protocols: keys, signatures and envelopes (issue 13).

#[cfg(feature = "sigstore")]
pub mod sigstore;
