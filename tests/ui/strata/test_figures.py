def test_privacy_chart_draws_the_exact_profile_of_the_strata():
    import numpy as np

    from core.accounting.stratified_profile import stratified_eps_target
    from ui.strata.figures import privacy_rate_figure

    sizes = np.array([40, 300, 1200])
    fig, data = privacy_rate_figure(1.0, 0.1, [], sizes)
    assert "exact for these strata" in data
    names = [t.name for t in fig.data]
    assert "proportional, randomised rounding: exact for these stratum sizes" in names
    row = data.loc[(data["rate"] - 0.1).abs().idxmin()]
    assert row["exact for these strata"] == stratified_eps_target(1.0, 2.0, 0.1, sizes, "deletion")
    assert row["exact for these strata"] < row["Theorem 7.2 bound"]
    _, plain = privacy_rate_figure(1.0, 0.1, [])
    assert "exact for these strata" not in plain
