"""AppTest on the Cost of sampling page: measure, draw both regimes, name the crossovers, check exactness."""
from tests.app.conftest import open_app


def test_measures_both_regimes_with_exactness():
    at = open_app("pages/sampling_cost.py")
    assert any("Press **Measure**" in i.value for i in at.info)
    costs = at.dataframe[0].value.set_index("method")  # ours beside the notes' table (Vose's alias table: O(k))
    assert costs.loc["alias", "in the notes' table"] == "O(k log k + n)" and costs.loc["alias"].iloc[0] == "O(k + n)"
    at.slider(key="cost_budget").set_value(0.2).run()
    next(b for b in at.button if b.label == "Measure").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert len(at.get("plotly_chart")) == 3
    assert any(s.value.startswith("Regime 2") for s in at.subheader)
    said = next(m.value for m in at.markdown if "What the measurements say" in m.value)
    assert "fastest is" in said
    beside = next(c.value for c in at.caption if c.value.startswith("Beside the model"))  # a draw against a forward
    assert "µs" in beside and "ms" in beside and "%" in beside
    exact = at.dataframe[1].value
    assert set(exact["method"]) >= {"alias", "Gumbel-max", "binary search", "exponential race (exp-race)"} and (exact["p-value"] > 1e-4).all()
    # the machine's load was probed with the model itself, three times (before, between and after the regimes)
    _, rec = at.session_state["_result_cost"]
    assert len(rec.probes) == 3 and all(0 < s < 5 for s in rec.probes)
    assert rec.probe_quiet is None or 0 < rec.probe_quiet < 5  # the stored fastest forward, read before the study
    # the whole measurement downloads as JSON beside the numbers' CSV, in the form the command line's study prints
    # (the page's settings say what it measured); the document itself is built by the functions the button calls
    downloads = {b.proto.id.split("-", 2)[2]: b.proto for b in at.get("download_button")}
    assert {"_csv_cost-numbers", "_json_cost-measurement"} <= set(downloads)
    assert downloads["_json_cost-measurement"].label == "Download the whole measurement (JSON)"
    import json

    from decoding_core.studies.run import study_document
    from viz.sampling_cost import cost_settings

    doc = json.loads(json.dumps(study_document("sampling-cost", rec, cost_settings(rec, 0.2, 0, "embedded", "auto",
                                                                                   "float32"), "hi", True, [1, 2])))
    assert doc["study"] == "sampling-cost" and doc["settings"]["study"]["budget"] == 0.2
    assert len(doc["rows"]) == len(rec.rows) and doc["crossovers"] == list(rec.crossovers) and len(doc["probes"]) == 3
    assert doc["settings"]["study"]["k"] == "100,1000,10000,49152"  # the function's default: up to the vocabulary
    assert doc["settings"]["study"]["n"] == "1,10,100,1000,10000,100000"  # the command line's --n default
