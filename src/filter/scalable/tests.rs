//! The stage sizes of the `SBLS` format, pinned, and the cost of checking them on read.
use super::*;
use crate::Xxh3Plain;
use crate::math::scalable_v1::EVALUATIONS;

/// Pinned stage sizes: a `SBLS` file stores its parameters, not its stage sizes, so writer and
/// reader must both compute exactly these (0 where no filter can be built): (initial capacity,
/// fpr, growth factor, tightening ratio, blocks of stages 0..6).
const PINNED_STAGES: [(u64, f64, f64, f64, [usize; 6]); 64] = [
    (
        1000000000,
        0.999,
        4.0,
        0.999999,
        [252641133, 1010564736, 4042259765, 0, 0, 0],
    ),
    (
        1000000,
        0.9,
        1.0,
        0.85,
        [21391, 22470, 23562, 24668, 25791, 26932],
    ),
    (
        1000000000,
        0.9,
        1.0,
        0.85,
        [21390241, 22469449, 23561107, 24667360, 25790129, 26931163],
    ),
    (
        12345,
        1e-6,
        1.0,
        0.001,
        [3119, 15358, 161467, 12489574, 0, 0],
    ),
    (10, 0.01, 1.5, 0.999999, [7, 11, 16, 24, 36, 53]),
    (
        1000000,
        1e-9,
        4.0,
        0.9,
        [2417517, 9992004, 41308025, 170811178, 706479454, 2922708778],
    ),
    (1, 1e-6, 4.0, 0.5, [1, 2, 7, 30, 136, 639]),
    (
        1000000000,
        1e-6,
        1.5,
        0.001,
        [252641133, 1866045534, 0, 0, 0, 0],
    ),
    (
        1000000,
        0.999,
        2.0,
        0.5,
        [12692, 34739, 87627, 213105, 507540, 1192657],
    ),
    (
        1000000000,
        0.5,
        4.0,
        0.9,
        [28222953, 115954063, 476216763, 1955099965, 0, 0],
    ),
    (
        1000000000,
        0.999,
        4.0,
        0.9,
        [23399480, 96453718, 397342913, 1635935557, 0, 0],
    ),
    (
        12345,
        0.1,
        2.0,
        0.001,
        [289, 2542, 20237, 238828, 7786512, 3640149853],
    ),
    (
        1000000,
        0.01,
        1.5,
        0.001,
        [41139, 240196, 1559936, 17670925, 800594974, 0],
    ),
    (
        1000000000,
        0.5,
        1.5,
        0.85,
        [25357736, 39737357, 62200543, 97262911, 151950514, 237190297],
    ),
    (
        100,
        1e-6,
        1.5,
        0.999999,
        [1308, 1962, 2942, 4419, 6629, 9937],
    ),
    (12345, 0.9, 1.0, 0.5, [166, 223, 280, 338, 402, 471]),
    (100, 0.999, 2.0, 0.9, [3, 5, 10, 21, 43, 87]),
    (12345, 0.5, 1.5, 0.9, [349, 537, 827, 1273, 1959, 3014]),
    (
        1000000,
        0.01,
        2.0,
        0.001,
        [41139, 320261, 2773219, 41886635, 2530275473, 0],
    ),
    (3, 0.01, 4.0, 0.001, [1, 2, 34, 1006, 121454, 280019651]),
    (3, 0.999, 1.5, 0.001, [1, 1, 2, 14, 210, 23291]),
    (10, 1e-6, 1.0, 0.999999, [131, 131, 131, 131, 131, 131]),
    (
        1000000000,
        0.999,
        4.0,
        0.9,
        [23399480, 96453718, 397342913, 1635935557, 0, 0],
    ),
    (3, 0.999, 1.0, 0.001, [1, 1, 1, 4, 40, 3038]),
    (
        1000000,
        1e-9,
        4.0,
        0.9,
        [2417517, 9992004, 41308025, 170811178, 706479454, 2922708778],
    ),
    (3, 0.9, 4.0, 0.85, [1, 1, 2, 5, 20, 83]),
    (100, 0.1, 1.0, 0.9, [5, 5, 5, 5, 5, 5]),
    (
        1000000000,
        0.01,
        2.0,
        0.999999,
        [693138279, 1386276889, 2772554442, 0, 0, 0],
    ),
    (
        1000000,
        0.9,
        4.0,
        0.9,
        [24107, 99309, 408873, 1682533, 6920341, 28450823],
    ),
    (1, 1e-9, 2.0, 0.001, [2, 27, 4047, 7284136, 0, 0]),
    (1000, 0.001, 1.0, 0.9, [103, 105, 108, 110, 112, 114]),
    (3, 0.999, 2.0, 0.001, [1, 1, 4, 30, 629, 97213]),
    (3, 1e-9, 4.0, 0.001, [4, 157, 48563, 174819253, 0, 0]),
    (
        1000000000,
        0.9,
        1.5,
        0.5,
        [13433596, 27073567, 50853946, 92400234, 164654504, 289723467],
    ),
    (10, 0.5, 2.0, 0.001, [1, 2, 12, 121, 2853, 616597]),
    (
        1000000000,
        0.5,
        1.0,
        0.5,
        [17362615, 21899897, 26631013, 31713594, 37262135, 43380959],
    ),
    (
        100,
        1e-9,
        4.0,
        0.999999,
        [101080, 404318, 1617271, 6469087, 25876369, 103505570],
    ),
    (
        1000000,
        0.1,
        1.5,
        0.9,
        [41130, 63121, 96854, 148593, 227937, 349601],
    ),
    (3, 0.001, 2.0, 0.999999, [4, 8, 15, 30, 60, 120]),
    (1, 0.5, 1.0, 0.999999, [1, 1, 1, 1, 1, 1]),
    (
        1000000000,
        1e-9,
        1.0,
        0.9,
        [
            2417516526, 2498000959, 2581751519, 2668924648, 2759685365, 2854207791,
        ],
    ),
    (
        1000000,
        0.5,
        1.0,
        0.9,
        [28223, 28989, 29764, 30549, 31344, 32150],
    ),
    (100, 1e-6, 1.5, 0.9, [41, 63, 97, 149, 228, 350]),
    (
        1000000,
        0.9,
        2.0,
        0.9,
        [24107, 49655, 102219, 210317, 432522, 889089],
    ),
    (1000, 0.1, 1.5, 0.999999, [410, 615, 922, 1383, 2075, 3112]),
    (1000000000, 1e-9, 1.5, 0.999999, [0, 0, 0, 0, 0, 0]),
    (
        1000,
        0.001,
        1.0,
        0.999999,
        [1244, 1244, 1244, 1244, 1244, 1244],
    ),
    (10, 1e-9, 2.0, 0.85, [22, 45, 95, 199, 418, 880]),
    (
        12345,
        1e-6,
        2.0,
        0.001,
        [3119, 30716, 645868, 99916586, 0, 0],
    ),
    (1000000000, 1e-9, 1.0, 0.001, [1244030356, 0, 0, 0, 0, 0]),
    (1000, 1e-6, 2.0, 0.001, [253, 2489, 52319, 8093689, 0, 0]),
    (
        1000000,
        1e-9,
        1.0,
        0.9,
        [2417517, 2498001, 2581752, 2668925, 2759686, 2854208],
    ),
    (1, 0.9, 2.0, 0.85, [1, 1, 1, 1, 1, 1]),
    (3, 0.9, 1.5, 0.5, [1, 1, 1, 1, 1, 1]),
    (100, 1e-9, 1.0, 0.85, [214, 225, 236, 248, 261, 275]),
    (
        1000000000,
        1e-6,
        1.5,
        0.9,
        [
            409718603, 628891721, 965394358, 1482084467, 2275522410, 3494056195,
        ],
    ),
    (
        1000000,
        0.999,
        1.0,
        0.85,
        [20703, 21776, 22859, 23956, 25068, 26197],
    ),
    (
        1000000000,
        0.9,
        1.5,
        0.999999,
        [
            258059629, 387089522, 580634401, 870951779, 1306427934, 1959642299,
        ],
    ),
    (100, 0.01, 4.0, 0.5, [5, 22, 102, 463, 2118, 9675]),
    (3, 0.9, 1.0, 0.85, [1, 1, 1, 1, 1, 1]),
    (
        1000000000,
        0.9,
        1.0,
        0.001,
        [7233407, 67368298, 258112207, 1279974418, 0, 0],
    ),
    (10, 1e-6, 1.5, 0.85, [4, 6, 10, 15, 23, 35]),
    (10, 0.999, 2.0, 0.5, [1, 1, 1, 3, 6, 12]),
    (1000000000, 1e-9, 4.0, 0.999999, [0, 0, 0, 0, 0, 0]),
];

/// The writer computes exactly the pinned stage sizes and the reader accepts exactly those.
#[test]
fn stage_sizes_are_pinned() {
    for (capacity, fpr, growth_factor, tightening_ratio, blocks) in PINNED_STAGES {
        let mut parameters = ScalableParameters::new(capacity as usize, fpr);
        parameters.growth_factor = growth_factor;
        parameters.tightening_ratio = tightening_ratio;
        let mut check = math::scalable_v1::StageCheck::default();
        for (stage, &expected) in blocks.iter().enumerate() {
            let computed = parameters.stage_blocks(stage);
            let (capacity, fpr) = (
                parameters.stage_capacity(stage),
                parameters.stage_fpr(stage),
            );
            if expected == 0 {
                assert!(
                    computed.is_err(),
                    "{parameters:?} stage {stage}: {computed:?}"
                );
                continue;
            }
            assert_eq!(computed, Ok(expected), "{parameters:?} stage {stage}");
            assert!(
                check.matches(capacity as u64, fpr, expected),
                "{parameters:?} {stage}"
            );
            assert!(!check.matches(capacity as u64, fpr, expected + 1));
            assert!(expected == 1 || !check.matches(capacity as u64, fpr, expected - 1));
        }
    }
}

/// Evaluations of the rate while reading `bytes` as a filter of `stages` stages.
fn evaluations_to_read(bytes: &[u8], stages: usize) -> usize {
    EVALUATIONS.with(|count| count.set(0));
    let read = ScalableFilter::<Xxh3Plain>::from_bytes_with_hasher(bytes).unwrap();
    assert_eq!(read.stages().len(), stages);
    assert_eq!(read.to_bytes(), bytes);
    EVALUATIONS.with(|count| count.get())
}

/// Reading checks each stage's size with at most two evaluations of the rate (none when the
/// stage is like the one before), not the ~60 to 200 of recomputing it, so that a small file
/// of many one-block stages opens in time proportional to its length.
#[test]
fn reading_checks_stage_sizes_in_constant_time_per_stage() {
    let mut parameters = ScalableParameters::new(1, 0.01);
    parameters.growth_factor = 1.0;
    parameters.tightening_ratio = 0.999_999;
    let mut filter = ScalableFilter::with_parameters(parameters, Xxh3Plain::default()).unwrap();
    let mut key = 0u64;
    while filter.stages().len() < 2000 {
        filter.insert(&key).unwrap();
        key += 1;
    }
    assert!(filter.stages().iter().all(|stage| stage.num_blocks() == 1));
    let bytes = filter.to_bytes();
    assert_eq!(bytes.len(), 64 + 2000 * 64);
    let count = evaluations_to_read(&bytes, 2000);
    assert!(count <= 4, "{count} evaluations for 2000 equal stages");

    let mut filter =
        ScalableFilter::with_parameters(ScalableParameters::new(100, 0.01), Xxh3Plain::default())
            .unwrap();
    for key in 0..10_000u64 {
        filter.insert(&key).unwrap();
    }
    let stages = filter.stages().len();
    assert!(stages >= 6);
    let count = evaluations_to_read(&filter.to_bytes(), stages);
    assert!(
        count <= 2 * stages,
        "{count} evaluations for {stages} stages"
    );
}
