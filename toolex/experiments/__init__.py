"""What the results rest on, computed and cached: the settings of a run, the workspace of loaded benchmarks
with its retrieval runs and annotations, the one-to-one baselines, fine-tuning, the release, the calibration
workflow and the cross-source judge study."""
