//! The kernels a step runs on this CPU: how many contacts (and joint parts) a bundle solves side
//! by side, and whether the AVX2-compiled forms of the lane kernels run. Made with the step's
//! context ([`crate::step::StepContext::kernels`]) from [`SimdWidth`]; the CPU is asked here and
//! nowhere else, and `Kernels::run` is the one place the lane count chooses which code runs:
//! the stages write their work once for any lane count (`LaneWork`). Every choice gives the
//! same bits.

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

    /// Runs `work` on the form in `on` of these kernels' lane count, compiled with AVX2 for
    /// eight lanes where the CPU has it (its lane loops then run as eight-wide vectors; the
    /// same operations, so the same bits).
    ///
    /// # Safety
    /// The work's own contract (its type says it); AVX2 is checked here.
    #[inline(always)]
    pub(crate) unsafe fn run<W: LaneWork>(self, on: &PerLanes<W::Lanes>, work: W) -> W::Output {
        /// # Safety
        /// The CPU has AVX2, and `work`'s own contract.
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = "avx2")]
        unsafe fn avx2<W: LaneWork>(work: W, on: &<W::Lanes as ByLanes>::Of<8>) -> W::Output {
            // SAFETY: the CPU has AVX2 (`AVX2` true), and the caller's contract.
            unsafe { work.run::<8, true>(on) }
        }
        /// `work` compiled for the default instruction set: a function of its own for each work
        /// and lane count (as `avx2` is), so that a stage holds calls, not a copy of the work's
        /// kernels for each lane count (inlined, the copies made the solver's optimised build
        /// five times slower).
        ///
        /// # Safety
        /// `work`'s own contract.
        #[inline(never)]
        unsafe fn plain<W: LaneWork, const L: usize>(
            work: W,
            on: &<W::Lanes as ByLanes>::Of<L>,
        ) -> W::Output {
            // SAFETY: `AVX2` false; the caller's contract.
            unsafe { work.run::<L, false>(on) }
        }
        // SAFETY: `avx2` only where `Kernels::avx2` says the CPU has AVX2; the rest is the
        // caller's contract.
        unsafe {
            match self.lanes {
                1 => plain::<W, 1>(work, &on.one),
                4 => plain::<W, 4>(work, &on.four),
                #[cfg(target_arch = "x86_64")]
                _ if self.avx2 => avx2(work, &on.eight),
                _ => plain::<W, 8>(work, &on.eight),
            }
        }
    }
}

/// A type that comes in one form per lane count: a list of `L`-lane bundles, a view of one.
pub(crate) trait ByLanes {
    /// The form for bundles of `L` lanes.
    type Of<const L: usize>;
}

/// The forms of a [`ByLanes`] for the three lane counts, side by side: the solver keeps all
/// three and fills the one of the step's kernels (the others stay empty).
pub(crate) struct PerLanes<F: ByLanes> {
    pub(crate) one: F::Of<1>,
    pub(crate) four: F::Of<4>,
    pub(crate) eight: F::Of<8>,
}

/// Work written once for every lane count, run by [`Kernels::run`] on the form of the step's.
pub(crate) trait LaneWork {
    /// What the work runs on, in its form for each lane count.
    type Lanes: ByLanes;
    /// What the work gives back.
    type Output;

    /// The work on `on`, the form for `L` lanes; `AVX2` when it runs compiled with AVX2 (the
    /// lane kernels it reaches may then use its instructions).
    ///
    /// # Safety
    /// `AVX2` only where the CPU has AVX2, and the work's own contract.
    unsafe fn run<const L: usize, const AVX2: bool>(
        self,
        on: &<Self::Lanes as ByLanes>::Of<L>,
    ) -> Self::Output;
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
