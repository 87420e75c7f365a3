//! The GGML block formats' facts, as llama.cpp defines them (ggml-common.h): the block structs,
//! the weights per block, the types, and MXFP4's value table. The quantizers ([`super::ggml`],
//! [`super::nvfp4`]) and the byte layouts ([`super::layout`]) read them from here.

/// Weights per GGML block.
pub const QK: usize = 32;

// llama.cpp's `#[repr(C)]` block structs (ggml-common.h): `Layout::of` takes each format's code
// offset from them, and its block sizes are checked against theirs.

/// Declares a llama.cpp block struct, `#[repr(C)]` with public fields, and checks its size.
macro_rules! llama_block {
    ($(#[$doc:meta])* $name:ident = $bytes:literal { $($field:ident: $ty:ty, $what:literal;)* }) => {
        $(#[$doc])*
        #[repr(C)]
        pub struct $name {
            $(#[doc = $what] pub $field: $ty,)*
        }
        const _: () = assert!(std::mem::size_of::<$name>() == $bytes);
    };
}

llama_block! {
    /// llama.cpp `block_q8_0 { ggml_half d; int8_t qs[32]; }`.
    BlockQ8_0 = 34 { d: u16, "Scale (IEEE half bits)."; qs: [i8; QK], "Codes."; }
}
llama_block! {
    /// llama.cpp `block_q4_0 { ggml_half d; uint8_t qs[16]; }`: low nibbles hold weights 0..16,
    /// high nibbles 16..32.
    BlockQ4_0 = 18 { d: u16, "Scale (IEEE half bits)."; qs: [u8; QK / 2], "Packed nibbles."; }
}
llama_block! {
    /// llama.cpp `block_q4_1 { ggml_half d; ggml_half m; uint8_t qs[16]; }`.
    BlockQ4_1 = 20 { d: u16, "Scale."; m: u16, "Minimum."; qs: [u8; QK / 2], "Packed nibbles."; }
}
llama_block! {
    /// llama.cpp `block_q5_0 { ggml_half d; uint8_t qh[4]; uint8_t qs[16]; }`: bit j of qh is
    /// the fifth bit of weight j.
    BlockQ5_0 = 22 { d: u16, "Scale."; qh: [u8; 4], "Fifth bits."; qs: [u8; QK / 2], "Low nibbles."; }
}
llama_block! {
    /// llama.cpp `block_q5_1 { ggml_half d; ggml_half m; uint8_t qh[4]; uint8_t qs[16]; }`.
    BlockQ5_1 = 24 {
        d: u16, "Scale."; m: u16, "Minimum."; qh: [u8; 4], "Fifth bits."; qs: [u8; QK / 2], "Low nibbles.";
    }
}
llama_block! {
    /// llama.cpp `block_mxfp4 { uint8_t e; uint8_t qs[16]; }`: an E8M0 shared exponent and E2M1
    /// codes.
    BlockMxfp4 = 17 { e: u8, "E8M0 scale exponent."; qs: [u8; QK / 2], "Packed E2M1 codes."; }
}

/// The GGML block formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GgmlType {
    /// 8-bit, absmax scale.
    Q8_0,
    /// 4-bit, signed scale from the largest-magnitude weight.
    Q4_0,
    /// 4-bit with scale and minimum.
    Q4_1,
    /// 5-bit, signed scale.
    Q5_0,
    /// 5-bit with scale and minimum.
    Q5_1,
    /// OCP MX FP4: E2M1 codes with a shared E8M0 exponent.
    Mxfp4,
}

impl GgmlType {
    /// Every GGML type, in the CLI's order.
    pub const ALL: [GgmlType; 6] = [
        GgmlType::Q8_0,
        GgmlType::Q4_0,
        GgmlType::Q4_1,
        GgmlType::Q5_0,
        GgmlType::Q5_1,
        GgmlType::Mxfp4,
    ];
}

/// E2M1 values doubled, in llama.cpp's `kvalues_mxfp4` order.
pub const KVALUES_MXFP4: [i8; 16] = [0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12];
