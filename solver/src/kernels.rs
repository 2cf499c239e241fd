//! The kernels a step runs on this CPU: how many contacts (and joint parts) a bundle solves side
//! by side, and whether the AVX2-compiled forms of the lane kernels run. Made with the step's
//! context ([`crate::step::StepContext::kernels`]) from [`SimdWidth`]; the CPU is asked here and
//! nowhere else. Every choice gives the same bits.

/// The kernels a step runs (see the module doc).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Kernels {
    lanes: usize,
    avx2: bool,
}

impl Kernels {
    /// What `simd` means on this CPU: `Auto` is eight lanes where the CPU has AVX2, else four.
    pub fn new(simd: SimdWidth) -> Kernels {
        let avx2 = cpu_has_avx2();
        let lanes = match simd {
            SimdWidth::Scalar => 1,
            SimdWidth::Four => 4,
            SimdWidth::Eight => 8,
            SimdWidth::Auto if avx2 => 8,
            SimdWidth::Auto => 4,
        };
        Kernels { lanes, avx2 }
    }

    /// How many contacts or joint parts a bundle holds: 1, 4 or 8.
    pub fn lanes(self) -> usize {
        self.lanes
    }

    /// Whether the AVX2-compiled kernels run: only where the CPU has AVX2, which is what their
    /// callers' `unsafe` blocks rest on.
    pub fn avx2(self) -> bool {
        self.avx2
    }
}

/// Whether this CPU has AVX2 (false off x86-64): the engine's one question to the CPU.
fn cpu_has_avx2() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx2")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// How many contacts of a colour the solver works on at once.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum SimdWidth {
    /// Eight lanes where the CPU has AVX2, else four.
    #[default]
    Auto,
    /// One at a time.
    Scalar,
    /// Four lanes (SSE2 on x86-64).
    Four,
    /// Eight lanes (AVX2 if the CPU has it, else two SSE2 halves).
    Eight,
}

impl SimdWidth {
    /// The lane count this choice means on this CPU ([`Kernels::new`]).
    pub fn lanes(self) -> usize {
        Kernels::new(self).lanes()
    }
}
