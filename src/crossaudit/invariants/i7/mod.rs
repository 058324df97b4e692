//! I7: a verdict binds commit, manifest and versions, or it is not a receipt. The binding stage
//! (`binding.rs`) and the science side it reads (`science.rs`: subject, manifest, extent).

pub(crate) mod binding;
pub(crate) mod science;

#[cfg(test)]
mod tests;
