//! A small seeded pseudo-random generator (xoshiro256**, seeded through
//! SplitMix64). Every input the harness makes comes from one of these, so a
//! seed reproduces a run exactly, on every platform.

/// A reproducible stream of pseudo-random numbers.
///
/// ```
/// use utf8guard_difftest::Rng;
///
/// let mut a = Rng::new(7);
/// let mut b = Rng::new(7);
/// assert_eq!(a.next_u64(), b.next_u64());
/// assert!(a.below(10) < 10);
/// ```
#[derive(Clone, Debug)]
pub struct Rng {
    s: [u64; 4],
}

/// One step of SplitMix64: spreads a seed over 64 well-mixed bits.
fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl Rng {
    /// A generator whose whole stream is determined by `seed`.
    pub fn new(seed: u64) -> Rng {
        let mut state = seed;
        Rng {
            s: [
                splitmix64(&mut state),
                splitmix64(&mut state),
                splitmix64(&mut state),
                splitmix64(&mut state),
            ],
        }
    }

    /// A generator for a sub-task, determined by `seed` and `stream`: two
    /// streams of one seed are independent of each other.
    pub fn derive(seed: u64, stream: u64) -> Rng {
        let mut state = seed ^ stream.wrapping_mul(0xD1B5_4A32_D192_ED03);
        Rng::new(splitmix64(&mut state))
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let result = self.s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = self.s[1] << 17;
        self.s[2] ^= self.s[0];
        self.s[3] ^= self.s[1];
        self.s[1] ^= self.s[2];
        self.s[0] ^= self.s[3];
        self.s[2] ^= t;
        self.s[3] = self.s[3].rotate_left(45);
        result
    }

    /// A number in `0..n` (`0` when `n` is 0). Multiply-shift: the bias is
    /// below 2^-32 for every `n` the harness uses.
    pub fn below(&mut self, n: usize) -> usize {
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }

    /// A number in `lo..=hi`.
    pub fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi - lo + 1)
    }

    /// A byte in `lo..=hi`.
    pub fn byte(&mut self, lo: u8, hi: u8) -> u8 {
        self.range(lo as usize, hi as usize) as u8
    }

    /// `true` once in `n` times on average.
    pub fn one_in(&mut self, n: usize) -> bool {
        self.below(n) == 0
    }

    /// A random element of a non-empty slice.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }

    /// A length between `lo` and `hi` (inclusive) with a roughly
    /// log-uniform distribution: small and large sizes are both common.
    pub fn log_size(&mut self, lo: usize, hi: usize) -> usize {
        let lo_bits = usize::BITS - lo.max(1).leading_zeros();
        let hi_bits = usize::BITS - hi.max(1).leading_zeros();
        let bits = self.range(lo_bits as usize, hi_bits as usize) as u32;
        let top = 1usize.checked_shl(bits).unwrap_or(usize::MAX);
        self.range(lo, hi.min(top.saturating_sub(1)).max(lo))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_are_reproducible_and_distinct() {
        let a: Vec<u64> = (0..4)
            .scan(Rng::new(1), |r, _| Some(r.next_u64()))
            .collect();
        let b: Vec<u64> = (0..4)
            .scan(Rng::new(1), |r, _| Some(r.next_u64()))
            .collect();
        let c: Vec<u64> = (0..4)
            .scan(Rng::new(2), |r, _| Some(r.next_u64()))
            .collect();
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert_ne!(Rng::derive(1, 0).next_u64(), Rng::derive(1, 1).next_u64());
    }

    #[test]
    fn ranges_are_respected_and_covered() {
        let mut rng = Rng::new(3);
        let mut seen = [false; 5];
        for _ in 0..1000 {
            let v = rng.range(10, 14);
            assert!((10..=14).contains(&v));
            seen[v - 10] = true;
        }
        assert_eq!(seen, [true; 5]);
        assert_eq!(rng.below(0), 0);
        for _ in 0..1000 {
            let n = rng.log_size(3, 5000);
            assert!((3..=5000).contains(&n), "{n}");
        }
    }
}
