"""A bad sweep file or parameter fails before any trial starts, in one line that names it."""

import pytest
import yaml

from tests.conftest import REPO
from zoo.registry import NORMS
from zoo.sweep import main

SHAKESPEARE = "configs/decoder_only/tinyshakespeare.yaml"
ANY_FOLDER = ["--data.path=."]  # the checks need a folder (the hub id is refused offline), and read no data


def write_sweep(folder, **changes) -> str:
    sweep = {
        "name": "bad",
        "command": ["${env}", "${interpreter}", "-m", "zoo", "fit", "--config", SHAKESPEARE, *ANY_FOLDER, "${args}"],
        "method": "grid",
        "metric": {"name": "val_loss", "goal": "minimize"},
        "parameters": {"model.pe": {"values": ["learned", "rope"]}},
        **changes,
    }
    path = folder / "sweep.yaml"
    path.write_text(yaml.safe_dump(sweep))
    return str(path)


@pytest.fixture
def run_sweep(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(REPO)

    def run(*extra, **changes) -> str:
        runs = tmp_path / "runs"
        code = main([write_sweep(tmp_path, **changes), "--runs_dir", str(runs), *extra])
        assert code == 2
        assert not runs.exists()  # nothing started, not even the sweep's state folder
        error = capsys.readouterr().err
        assert error.startswith("zoo sweep: error: ") and error.count("\n") == 1, error
        return error.removeprefix("zoo sweep: error: ").strip()

    return run


def test_typo_in_a_key_names_it_and_the_nearest_fields(run_sweep):
    message = run_sweep(parameters={"model.norm_postion": {"values": ["pre", "post"]}})
    assert message.startswith("parameter 'model.norm_postion' is not a field of `zoo fit --config")
    assert "did you mean model.norm_position" in message


def test_typo_in_a_trainer_key_is_caught_although_the_parser_lets_it_through(run_sweep):
    message = run_sweep(parameters={"trainer.max_step": {"value": 10}})
    assert "'trainer.max_step' is not a field" in message and "trainer.max_steps" in message


def test_bad_choice_names_the_valid_ones_before_any_trial(run_sweep):
    message = run_sweep(parameters={"model.norm": {"values": ["layernorm", "groupnorm"]}})
    assert message.startswith("parameters.model.norm='groupnorm' is rejected by `zoo fit --config")
    choices = ", ".join(repr(name) for name in NORMS.names())  # a new norm is one of them
    assert message.endswith(f"model.norm='groupnorm' is not valid; choose one of: {choices}")
    assert choices.startswith("'layernorm', 'rmsnorm', 'batchnorm', 'powernorm'")


def test_bad_value_names_the_parameter_and_the_value(run_sweep):
    message = run_sweep(parameters={"model.n_heads": {"values": [2, "many"]}})
    assert message.startswith("parameters.model.n_heads='many' is rejected by `zoo fit --config")
    assert "n_heads" in message and "many" in message


@pytest.mark.parametrize(
    "changes, expected",
    [
        ({"method": "grod"}, "method='grod' is not valid; choose one of: grid, random, bayes"),
        ({"method": "bayes", "metric": None}, "method=bayes needs a metric to optimise"),
        ({"metric": {"goal": "minimize"}}, "metric needs a name"),
        ({"metric": {"name": "val_loss", "goal": "min"}}, "metric.goal: 'min' is not one of ['minimize', 'maximize']"),
        ({"parameters": {}}, "'parameters' is missing or empty"),
        ({"parameters": {"model.pe": {"valus": ["rope"]}}}, "parameters.model.pe needs one of 'value', 'values'"),
        ({"name": "my sweep"}, "name='my sweep': use letters, digits"),
        ({"command": ["python", "train.py", "${args}"]}, "command must run `${interpreter} -m zoo fit"),
        ({"command": ["${env}", "${interpreter}", "-m", "zoo", "fit", "${argz}"]}, "macro ${argz} is not known"),
        (  # every trial trained the config's model, each under another name
            {"command": ["${env}", "${interpreter}", "-m", "zoo", "fit", "--config", str(SHAKESPEARE)]},
            "command has no ${args}: the parameters (model.pe) would never reach `zoo fit`, and every trial would "
            "train the same model; add '${args}' to it",
        ),
        (
            {"command": ["${env}", "${interpreter}", "-m", "zoo", "fit", "--model.pe=alibi", "${args}"]},
            "command: '--model.pe=alibi' sets model.pe, which parameters.model.pe sets for each trial; leave one",
        ),
        (  # every trial carried one checkpoint
            {"command": ["${env}", "${interpreter}", "-m", "zoo", "fit", "${args}", "--ckpt_path=x.ckpt"]},
            "command: '--ckpt_path=x.ckpt' sets ckpt_path, which the sweep sets for each trial; leave it out",
        ),
        (  # the runner's own --runs_dir came last and won: two trials of one model, in one folder
            {"parameters": {"runs_dir": {"values": ["a", "b"]}}},
            "parameters.runs_dir is not valid: the sweep sets runs_dir for each trial (give `zoo sweep --runs_dir "
            "DIR` for another folder of runs)",
        ),
        ({"parameters": {"run_name": {"values": ["a", "b"]}}}, "parameters.run_name is not valid: the sweep sets"),
        (  # the run records keep the lowest loss as the best: a maximising sweep ranked its trials by their minimum
            {"metric": {"name": "val_loss", "goal": "maximize"}},
            "metric.goal='maximize' is not valid for metric.name='val_loss', whose lower values are better (its run "
            "records keep the lowest as its best); set goal: minimize",
        ),
        ({"parameters": {"model.pe": {"values": "rope"}}}, "parameters.model.pe.values='rope' is not valid; it must"),
        ({"parameters": {"model.pe": {"values": []}}}, "parameters.model.pe.values=[] is not valid; it must be a"),
        ({"parameters": {"model.pe": {"values": ["rope"], "value": "rope"}}}, "has both 'value' and 'values'"),
        ({"parameters": {"model.pe": {"values": ["rope", "rope"]}}}, "parameters.model.pe.values lists 'rope' twice"),
    ],
)
def test_bad_sweep_file_names_the_field(run_sweep, changes, expected):
    assert expected in run_sweep(**changes)


def test_random_search_needs_a_count(run_sweep):
    assert "method=random needs --count N" in run_sweep(method="random")


def test_extra_argument_may_not_set_a_swept_key(run_sweep):
    message = run_sweep("--", "--model.pe=none")
    assert message == "extra argument '--model.pe=none' sets model.pe, which the sweep sets for each trial"
    spelled = run_sweep("--", "--model.init_args.pe=none")  # the same field: it replaced the swept value
    assert spelled == "extra argument '--model.init_args.pe=none' sets model.pe, which the sweep sets for each trial"


@pytest.mark.parametrize(("flag", "value"), [("--parallel", "0"), ("--threads", "-3"), ("--count", "0")])
def test_counts_below_one_name_the_option_and_value(run_sweep, flag, value):
    assert run_sweep(flag, value) == f"{flag}={value} is not valid; it must be an integer >= 1"


@pytest.mark.parametrize("value", ["0", "two", "-1"])
def test_an_exported_thread_count_that_is_no_count_is_refused(run_sweep, monkeypatch, value):
    monkeypatch.setenv("OMP_NUM_THREADS", value)
    assert run_sweep() == (
        f"OMP_NUM_THREADS={value!r} is not valid; it must be an integer >= 1 (or unset, to share the cores among "
        "the trials; --threads T sets it)"
    )


@pytest.mark.parametrize(
    ("threads", "exported", "expected"),
    [
        (3, "1", (3, "--threads")),
        (None, "1", (1, "OMP_NUM_THREADS")),  # it was overridden by cores // parallel without a word
        (None, " 4 ", (4, "OMP_NUM_THREADS")),
    ],
)
def test_a_trials_threads_come_from_threads_then_the_environment(monkeypatch, threads, exported, expected):
    from zoo.sweep.execution import trial_threads

    monkeypatch.setenv("OMP_NUM_THREADS", exported)
    assert trial_threads(threads, 2) == expected


def test_without_a_thread_count_the_cores_are_shared(monkeypatch):
    from zoo.sweep.execution import trial_threads

    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    monkeypatch.setattr("os.sched_getaffinity", lambda pid: set(range(8)), raising=False)
    monkeypatch.setattr("os.cpu_count", lambda: 8)
    assert trial_threads(None, 3) == (2, "8 cores // --parallel 3")


def test_a_sweep_file_that_is_not_yaml_names_its_line_and_column(tmp_path, capsys):
    path = tmp_path / "broken.yaml"
    path.write_text("name: x\nmethod: grid\nparameters:\n  model.pe: {values: [learned, rope]\n")
    assert main([str(path), "--runs_dir", str(tmp_path / "runs")]) == 2
    assert capsys.readouterr().err == (
        f"zoo sweep: error: {path} is not valid YAML: expected ',' or '}}', but got '<stream end>' at line 5, "
        "column 1\n"
    )


def test_a_metric_the_task_does_not_log(run_sweep):
    message = run_sweep(metric={"name": "val_bleu", "goal": "maximize"})
    assert message == (
        f"metric.name='val_bleu' is not logged by `zoo fit --config {SHAKESPEARE}` (LanguageModelTask); it logs: "
        "train_loss, lr, tokens_per_sec, grad_norm, parameters, train_tokens, val_loss, val_ppl, val_bpc"
    )


def test_a_combination_of_valid_values_that_fit_refuses_fails_before_any_trial(run_sweep):
    """Each value passes alone (with the other parameter's first value), but one grid point does not."""
    message = run_sweep(
        parameters={"model.d_model": {"values": [32, 36]}, "model.n_heads": {"values": [4, 8]}},
        name="pair",
    )
    assert message == (
        f"trial pair-d_model36-n_heads8 (model.d_model=36, model.n_heads=8) is rejected by `zoo fit --config "
        f"{SHAKESPEARE}`: model.d_model=36 is not divisible by model.n_heads=8; pick n_heads among the divisors "
        "of d_model"
    )


@pytest.mark.parametrize(
    ("parameters", "expected"),
    [  # refused by the task's checks or the zoo's trainer checks, which the parser alone let through
        ({"model.dropout": {"values": [0.1, 1.5]}}, "model.dropout=1.5 is not valid; it must be in [0, 1)"),
        ({"model.d_model": {"values": [30]}}, "model.d_model=30 is not divisible by model.n_heads=4"),
        ({"trainer.max_steps": {"values": [0]}}, "trainer.max_steps=0: fit would train nothing"),
        ({"model.dropout": {"distribution": "uniform", "min": 0.0, "max": 2.0}}, "model.dropout=2.0 is not valid"),
        # the data module's checks and the task's of the data settings, which need no data
        ({"data.block_size": {"values": [0]}}, "data.block_size=0 is not valid; it must be a positive integer"),
        ({"data.tokenizer": {"values": ["char", "foo"]}}, "data.tokenizer='foo' is not valid; choose one of: "),
        ({"data.batch_size": {"values": [-3]}}, "data.batch_size=-3 is not valid; it must be an integer >= 1"),
        ({"data.num_workers": {"values": [-1]}}, "data.num_workers=-1 is not valid; it must be an integer >= 0 (or"),
        ({"data.block_size": {"values": [32, 128]}}, "model.max_len=64 is shorter than the 128-token sequences"),
    ],
)
def test_a_value_that_fit_refuses_before_training_fails_the_sweep(run_sweep, parameters, expected):
    message = run_sweep(parameters=parameters, method="random" if "min" in str(parameters) else "grid")
    assert message.startswith(f"parameters.{next(iter(parameters))}=") and expected in message, message


def test_runs_dir_that_is_a_file(run_sweep, tmp_path):
    (tmp_path / "afile").write_text("x")
    for runs_dir in (tmp_path / "afile", tmp_path / "afile" / "below"):
        message = run_sweep("--runs_dir", str(runs_dir), "--dry-run")
        assert message == f"--runs_dir='{runs_dir}': no run folder can be made there ({tmp_path / 'afile'} is a file)"


def test_a_parameter_given_twice_in_the_file(tmp_path, capsys):
    """PyYAML kept the last silently: the sweep ran only rmsnorm."""
    path = tmp_path / "twice.yaml"
    path.write_text(
        "name: twice\nmethod: grid\nparameters:\n  model.norm: {values: [layernorm]}\n"
        "  model.norm: {values: [rmsnorm]}\n"
    )
    assert main([str(path), "--runs_dir", str(tmp_path / "runs")]) == 2
    assert capsys.readouterr().err == (
        f"zoo sweep: error: {path} is not valid YAML: the key 'model.norm' is given twice in one mapping at "
        "line 5, column 3\n"
    )


def test_a_command_that_only_its_parameters_make_valid_is_not_refused(tmp_path, capsys, monkeypatch):
    """A time budget with the config's cosine schedule is refused, but every trial sets a schedule without an
    end: the check of the bare command refused the sweep, and an extra --model.schedule was refused too."""
    monkeypatch.chdir(REPO)
    parameters = {"model.schedule": {"values": ["constant", "inverse_sqrt"]}}
    path = write_sweep(tmp_path, parameters=parameters, name="timed")
    budget = ["--trainer.max_steps=-1", "--trainer.max_time=00:00:01:00"]
    assert main([path, "--runs_dir", str(tmp_path / "runs"), "--dry-run", "--", *budget]) == 0, capsys.readouterr()
    out = capsys.readouterr().out
    assert " 1 timed-time00_00_01_00-constant  (to run)" in out and " 2 timed-time00_00_01_00-inverse_sqrt  (to" in out


@pytest.mark.parametrize(
    ("name", "goal", "wrong"),
    [("val_exact_match", "minimize", True), ("val_exact_match", "maximize", False), ("val_ppl", "maximize", True),
     ("test_bleu", "minimize", True), ("val_bpc", "minimize", False), ("tokens_per_sec", "minimize", False)],
)  # fmt: skip
def test_a_goal_against_the_metrics_direction_is_refused(name, goal, wrong):
    from zoo.sweep.spec import SweepError
    from zoo.sweep.validate import check_metric_goal

    if not wrong:
        check_metric_goal({"name": name, "goal": goal})
        return
    with pytest.raises(SweepError, match=rf"metric.goal='{goal}' is not valid for metric.name='{name}', whose "):
        check_metric_goal({"name": name, "goal": goal})


def test_a_trial_folder_holding_another_sweeps_run_is_refused(tmp_path, capsys, monkeypatch):
    """Sweep 'bad-rope' (seeds only) names its trials as sweep 'bad''s trials of model.pe=rope: it would take
    them as its own finished trials."""
    monkeypatch.chdir(REPO)
    runs = tmp_path / "runs"
    (runs / "bad-rope-s1").mkdir(parents=True)
    (runs / "bad-rope-s1" / "summary.json").write_text('{"status": "finished", "group": "bad"}')
    parameters = {"model.pe": {"value": "rope"}, "seed_everything": {"values": [1]}}
    code = main([write_sweep(tmp_path, name="bad-rope", parameters=parameters), "--runs_dir", str(runs), "--dry-run"])
    assert code == 2
    assert capsys.readouterr().err == (
        f"zoo sweep: error: trial bad-rope-s1's run folder {runs / 'bad-rope-s1'} holds a run of sweep 'bad' (the "
        "group in its summary.json), not of 'bad-rope'; give this sweep another name (name: in its file) or pass "
        "another --runs_dir\n"
    )


def test_early_terminate_is_said_to_be_not_applied(tmp_path, capsys, monkeypatch, data_dir):
    """W&B's hyperband stopping is a server's; a local sweep that took the file silently ran every trial."""
    monkeypatch.chdir(REPO)
    file = write_sweep(tmp_path, early_terminate={"type": "hyperband", "min_iter": 3})
    extra = ["--", f"--data.path={data_dir / 'tinyshakespeare'}"]
    assert main([file, "--runs_dir", str(tmp_path / "runs"), "--dry-run", *extra]) == 0
    assert (
        "sweep bad: early_terminate is not applied by zoo sweep (every trial trains to its budget); under wandb "
        "agent, W&B's server stops the trials it selects\n"
    ) in capsys.readouterr().out


@pytest.mark.parametrize(
    ("macro", "parameters", "booleans"),
    [
        ("${args_json}", {"model.pe": {"values": ["learned", "rope"]}}, False),
        ("${args_no_hyphens}", {"model.pe": {"values": ["learned", "rope"]}}, False),
        ("${args_no_boolean_flags}", {"model.tie_embeddings": {"values": [True, False]}}, True),
    ],
)
def test_a_parameter_macro_zoo_fit_cannot_read_is_named(run_sweep, macro, parameters, booleans):
    """They were accepted as passing the parameters, then the CLI refused what they made ('--model needs a
    value', 'unrecognized arguments: {}'), naming neither the macro nor what to write instead."""
    command = ["${env}", "${interpreter}", "-m", "zoo", "fit", "--config", SHAKESPEARE, macro]
    assert run_sweep(command=command, parameters=parameters) == (
        f"command: {macro} passes the parameters in a form `zoo fit` cannot read (it takes --key=value"
        f"{', true and false included' * booleans}); use '${{args}}' (or '${{args_no_equals}}')"
    )


def test_nested_parameters_say_to_use_dotted_keys(run_sweep):
    nested = {"model": {"parameters": {"norm": {"values": ["layernorm", "rmsnorm"]}}}}
    assert run_sweep(parameters=nested).endswith(
        "parameters.model nests parameters (W&B's nested form), which zoo sweep does not read; name each knob by "
        "its dotted key instead, e.g. parameters: {model.norm: {values: [...]}}"
    )


def test_two_draws_of_one_name_say_what_to_do(run_sweep):
    lr = {"model.lr": {"distribution": "log_uniform_values", "min": 0.001, "max": 0.0010001}}
    message = run_sweep("--count", "4", method="random", parameters=lr)
    assert message.startswith("two trials would share the run name 'bad-lr0.001': ")
    assert message.endswith(
        "(a number is named by its first 4 significant digits); choose values, or a range, that differ within "
        "those digits"
    )


def test_a_trial_killed_after_its_record_finished_is_finished_in_the_sweeps_state(
    tmp_path, capsys, monkeypatch, data_dir
):
    """A kill -9 during W&B's finish, after the run record said finished, left sweep.json at 'killed' for good:
    the next run skipped the trial as finished and said 0 failed."""
    import json

    monkeypatch.chdir(REPO)
    runs = tmp_path / "runs"
    for name in ("bad-learned", "bad-rope"):
        (runs / name).mkdir(parents=True)
        (runs / name / "summary.json").write_text('{"status": "finished", "group": "bad"}')
    (runs / "bad").mkdir()
    trials = {"bad-learned": {"status": "killed", "exit_code": -9}, "bad-rope": {"status": "finished"}}
    (runs / "bad" / "sweep.json").write_text(json.dumps({"trials": trials}))
    extra = ["--", f"--data.path={data_dir / 'tinyshakespeare'}"]
    assert main([write_sweep(tmp_path), "--runs_dir", str(runs), *extra]) == 0
    assert "skip  bad-learned  finished earlier" in capsys.readouterr().out
    state = json.loads((runs / "bad" / "sweep.json").read_text())
    assert {name: entry["status"] for name, entry in state["trials"].items()} == {
        "bad-learned": "finished",
        "bad-rope": "finished",
    }


def test_a_folder_of_sweep_files_is_named_as_a_folder(capsys, monkeypatch):
    monkeypatch.chdir(REPO)  # it said "sweep file 'sweeps' not found"
    assert main(["sweeps", "--dry-run"]) == 2
    assert capsys.readouterr().err == (
        "zoo sweep: error: sweep file 'sweeps' is a folder; name one of its sweep files (e.g. sweeps/do-pe.yaml)\n"
    )


def test_a_mistyped_sweep_file_names_the_nearest(capsys, monkeypatch):
    monkeypatch.chdir(REPO)
    assert main(["sweeps/do-positon.yaml", "--dry-run"]) == 2
    assert capsys.readouterr().err.startswith(
        "zoo sweep: error: sweep file 'sweeps/do-positon.yaml' not found; did you mean sweeps/do-position.yaml"
    )


@pytest.mark.parametrize(
    ("spec", "expected"),
    [  # W&B's schema said "... is not valid under any of the given schemas" for each
        ({"distribution": "int_uniform", "min": 1.5, "max": 4}, "min=1.5 is not valid for distribution int_uniform; "
         "it must be an integer (for real values, use distribution: uniform)"),
        ({"min": 1, "max": 2.5}, ": min=1 and max=2.5 do not say which distribution they bound; give two integers "
         "(int_uniform), two floats such as 1.0 and 2.5 (uniform), or name it (distribution: uniform)"),
        ({"distribution": "unifrom", "min": 0.0, "max": 1.0}, ".distribution='unifrom' is not valid; choose one of: "
         "beta, categorical, "),
        ({"distribution": "log_uniform_values", "min": 0.0, "max": 1.0}, ".min=0.0 is not valid for distribution "
         "log_uniform_values; it must be > 0"),
        ({"distribution": "uniform", "min": 0.0, "max": 1.0, "q": 0.1}, ".q is not a field of distribution uniform; "
         "its fields are: distribution, max, min"),
        ({"distribution": "int_uniform", "max": 3}, ": distribution int_uniform needs min"),
        ({"distribution": "normal", "mu": 0.0, "sigma": -1.0}, ".sigma=-1.0 is not valid for distribution normal; it "
         "must be >= 0"),
        ({"distribution": "uniform", "min": 0.0, "max": "one"}, ".max='one' is not valid for distribution uniform; "
         "it must be a number"),
        ({"min": 3, "max": 1}, ".model.lr: min 3 is not less than max 1"),
        ({"mu": 0.0, "sigma": 1.0}, " has mu, sigma but no distribution, value or values; name one (distribution: "
         "normal, for mu and sigma); the distributions: beta, "),  # it said "min=None and max=None do not say ..."
    ],
)  # fmt: skip
def test_a_bad_distribution_names_the_field_and_what_is_valid(spec, expected):
    from zoo.sweep.spec import SweepError, check_sweep

    config = {"name": "x", "method": "random", "parameters": {"model.lr": spec}}
    with pytest.raises(SweepError) as error:
        check_sweep(config, "x.yaml")
    assert str(error.value).startswith("x.yaml: parameters.model.lr") and expected in str(error.value), error.value


@pytest.mark.parametrize(
    "spec",
    [
        {"min": 1, "max": 4},
        {"min": 0.1, "max": 0.5},
        {"distribution": "uniform", "min": 0, "max": 1},
        {"distribution": "q_uniform", "min": 0.0, "max": 1.0, "q": 0.25},
        {"distribution": "log_uniform_values", "min": 1e-4, "max": 1e-2},
        {"distribution": "normal", "mu": 0.0, "sigma": 1.0},
    ],
)
def test_a_good_distribution_passes_and_draws(spec):
    from zoo.sweep.spec import check_sweep, expand

    config = {"name": "x", "method": "random", "parameters": {"model.lr": spec}}
    check_sweep(config, "x.yaml")
    drawn = [trial.params["model.lr"] for trial in expand(config, count=3)]  # a repeated draw is one trial
    assert drawn and all(isinstance(value, (int, float)) for value in drawn)
    if "min" in spec:
        assert all(spec["min"] <= value <= spec["max"] for value in drawn)


@pytest.mark.parametrize(
    ("parameters", "size"),
    [
        ({"model.n_heads": {"min": 1, "max": 4}, "seed_everything": {"value": 3}}, 4),  # int_uniform inferred
        ({"model.n_heads": {"distribution": "int_uniform", "min": 2, "max": 3}, "model.pe": {"values": ["a", "b"]}}, 4),
        ({"model.lr": {"distribution": "q_uniform", "min": 0.0, "max": 1.0, "q": 0.25}}, 4),  # W&B leaves out max
        ({"model.lr": {"distribution": "q_uniform", "min": 0.0, "max": 1.0, "q": 0.3}}, 4),
    ],
)
def test_a_grid_enumerates_every_point_of_its_ranges(parameters, size):
    from zoo.sweep.spec import expand

    trials = expand({"name": "x", "method": "grid", "parameters": parameters})
    assert len(trials) == size and len({tuple(sorted(trial.params.items())) for trial in trials}) == size


@pytest.mark.parametrize(
    ("spec", "expected"),
    [  # W&B said "Parameter model.lr is a disallowed type with grid search ..." without naming the file
        ({"min": 0.1, "max": 0.5}, "W&B's grid does not enumerate distribution uniform; method=grid takes values, "),
        ({"distribution": "q_log_uniform_values", "min": 1e-4, "max": 1e-2, "q": 1e-4}, "distribution q_log_unif"),
        ({"values": [1, 2], "probabilities": [0.5, 0.5]}, "method=grid takes no probabilities (it runs every value)"),
    ],
)
def test_a_grid_axis_w_and_b_cannot_enumerate_is_named(spec, expected):
    from zoo.sweep.spec import SweepError, check_sweep

    with pytest.raises(SweepError) as error:
        check_sweep({"name": "x", "method": "grid", "parameters": {"model.lr": spec}}, "x.yaml")
    assert str(error.value).startswith("x.yaml: parameters.model.lr: ") and expected in str(error.value), error.value


def test_fit_arguments_before_the_dashes_say_to_put_them_after(run_sweep, tmp_path):
    """argparse said "unrecognized arguments: --data.path ..." and nothing of the `--`."""
    message = run_sweep("--data.path", "../shared/data/sst2", "--dry-run", "--seed_everything=2", "--", "--x.y=1")
    runs = tmp_path / "runs"
    assert message == (
        f"--data.path ../shared/data/sst2 --seed_everything=2: arguments for fit go after --, which adds them to "
        f"every trial's command: python -m zoo sweep {tmp_path / 'sweep.yaml'} --runs_dir {runs} --dry-run -- "
        f"--data.path ../shared/data/sst2 --seed_everything=2 --x.y=1"
    )


def test_a_sweep_started_outside_the_repository_root_says_where_to_start_it(run_sweep, tmp_path, monkeypatch):
    """It said only "File does not exist: '<this folder>/configs/decoder_only/tinyshakespeare.yaml'"."""
    monkeypatch.chdir(tmp_path)
    assert run_sweep() == (
        f"the sweep's command reads --config {SHAKESPEARE}, relative to the repository root {REPO}, but this "
        f"folder is {tmp_path}: run the sweep from {REPO} (cd {REPO})"
    )
