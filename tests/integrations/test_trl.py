"""palaestra as TRL reward functions and environment; two real TRL GRPO steps on the tiny model."""

from __future__ import annotations

import os

import pytest

from palaestra.integrations.trl import PalaestraToolEnv, make_reward, palaestra_reward, task_rows
from palaestra.rows import dedup_key, row_to_task

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")


@pytest.fixture
def tiny_trl():
    """TRL, the tiny model's folder and its tokenizer (left padding, as GRPO generates)."""
    pytest.importorskip("torch")
    trl = pytest.importorskip("trl")
    pytest.importorskip("datasets")
    from transformers import AutoTokenizer

    from palaestra.agents.tiny import build_tiny

    path = build_tiny()
    tokenizer = AutoTokenizer.from_pretrained(path)
    tokenizer.padding_side = "left"
    return trl, path, tokenizer


def cpu_grpo_config(trl, tmp_path, **overrides):
    """A GRPOConfig for a few steps of the tiny model on CPU (transformers generation)."""
    settings = {
        "output_dir": str(tmp_path / "trl"),
        "per_device_train_batch_size": 4,
        "num_generations": 4,
        "use_vllm": False,
        "use_cpu": True,
        "bf16": False,
        "report_to": "none",
        "save_strategy": "no",
        "seed": 0,
    }
    return trl.GRPOConfig(**(settings | overrides))


def test_rows_and_reward_grade_with_the_verifier():
    rows = task_rows(["expression"], 3, level=2)
    assert len(rows) == 3 and rows[0]["prompt"][-1]["role"] == "user"
    tasks = [row_to_task(r) for r in rows]
    good = [f"<answer>{t.answer}</answer>" for t in tasks]
    bad = ["<answer>nan</answer>", "no answer", [{"role": "assistant", "content": "<answer>0.5</answer>"}]]
    columns = {"extra_info": [r["extra_info"] for r in rows]}
    assert palaestra_reward(good, **columns) == [1.0, 1.0, 1.0]
    assert palaestra_reward(bad, **columns) == [0.0, 0.0, 0.0]
    conversational = [[{"role": "assistant", "content": g}] for g in good]
    assert palaestra_reward(conversational, **columns) == [1.0, 1.0, 1.0]
    assert make_reward(["other"])(good, **columns) == [None, None, None]
    # rows written before extra_info carried the task record as a `task` column
    assert palaestra_reward(good, task=[t.to_json() for t in tasks]) == [1.0, 1.0, 1.0]
    with pytest.raises(ValueError, match="unknown task family"):
        task_rows(["no_such_family"], 1)


def test_rows_are_distinct_and_splits_disjoint_by_content():
    """Regression: at expression level 1, 500 train rows held 148 distinct tasks, 91% of test
    tasks were in train, and test seeds overlapped between calls with different n."""
    train = task_rows(["expression"], 60, level=1)
    test = task_rows(["expression"], 4, level=1, split="test")
    keys = [dedup_key(row_to_task(r)) for r in train]
    test_keys = [dedup_key(row_to_task(r)) for r in test]
    assert len(set(keys)) == len(keys) and len(set(test_keys)) == len(test_keys)
    assert not set(keys) & set(test_keys)
    assert task_rows(["expression"], 2, level=1, split="test") == test[:2]  # a prefix, whatever n
    with pytest.raises(ValueError, match="distinct"):
        task_rows(["expression"], 500, level=1)  # the level has fewer distinct tasks than that


def test_tool_env_gives_feedback_and_reward():
    row = task_rows(["expression"], 1, level=1)[0]
    answer = row_to_task(row).answer
    env = PalaestraToolEnv()
    assert "submit_answer" in env.reset(**row)
    assert env.submit_answer(str(int(answer) + 1)).startswith("wrong")
    assert env.get_reward() == 0.0
    assert env.submit_answer(str(answer)) == "correct"
    assert env.get_reward() == 1.0
    env.reset(**row)
    for _ in range(3):
        env.submit_answer("x")
    assert env.submit_answer(str(answer)) == "no attempts left" and env.get_reward() == 0.0


def test_two_trl_grpo_steps_on_tiny_model(tmp_path, tiny_trl):
    from transformers import AutoModelForCausalLM, TrainerCallback

    from palaestra.integrations.trl import task_dataset

    trl, path, tokenizer = tiny_trl
    model = AutoModelForCausalLM.from_pretrained(path)
    calls = []

    def counted_reward(completions, **columns):
        calls.append(len(completions))
        return palaestra_reward(completions, **columns)

    class Steps(TrainerCallback):
        def __init__(self):
            self.logs = []

        def on_log(self, args, state, control, logs=None, **kw):
            self.logs.append(dict(logs or {}))

    steps = Steps()
    args = cpu_grpo_config(
        trl, tmp_path, max_steps=2, max_completion_length=8, learning_rate=1e-3, logging_steps=1
    )
    trainer = trl.GRPOTrainer(
        model=model,
        reward_funcs=[counted_reward],
        args=args,
        train_dataset=task_dataset(["expression"], 8, level=1),
        processing_class=tokenizer,
        callbacks=[steps],
    )
    trainer.train()
    assert trainer.state.global_step == 2
    assert sum(calls) >= 8  # the verifier graded every completion of both steps
    assert any("reward" in log for log in steps.logs)


@pytest.mark.slow
def test_environment_factory_runs_through_trl_on_the_tiny_model(tmp_path, tiny_trl):
    """Regression: environment_factory=PalaestraToolEnv failed with the tiny model (its chat template
    cannot render tool calls, and 512 positions are too few for a prompt with a tool schema)."""
    from transformers import AutoConfig, AutoModelForCausalLM

    from palaestra.integrations.trl import task_dataset, use_tool_chat_template

    trl, path, tokenizer = tiny_trl
    tokenizer = use_tool_chat_template(tokenizer)
    config = AutoConfig.from_pretrained(path)
    config.max_position_embeddings = 4096  # the tool schema and the task do not fit in 512
    model = AutoModelForCausalLM.from_config(config)

    resets = []

    class RecordingToolEnv(PalaestraToolEnv):
        def reset(self, **row):
            opening = super().reset(**row)
            resets.append(self.task.id)
            return opening

    # the template renders the tool and TRL's parser reads a call to it back
    rendered = tokenizer.apply_chat_template(
        [{"role": "user", "content": "2+2?"}], tools=[RecordingToolEnv().submit_answer], tokenize=False
    )
    assert "submit_answer" in rendered
    call = '<tool_call>\n{"name": "submit_answer", "arguments": {"answer": "4"}}\n</tool_call><|im_end|>'
    parsed = tokenizer.parse_response(call, prefix="")
    assert parsed["tool_calls"][0]["function"]["name"] == "submit_answer"

    rows = task_dataset(["expression"], 4, level=1)
    args = cpu_grpo_config(trl, tmp_path, max_steps=1, max_completion_length=8)
    trainer = trl.GRPOTrainer(
        model=model,
        args=args,
        train_dataset=rows,
        processing_class=tokenizer,
        environment_factory=RecordingToolEnv,
    )
    trainer.train()
    assert trainer.state.global_step == 1
    assert set(resets) <= {row_to_task(r).id for r in rows} and len(resets) >= 4  # every rollout got its task


def test_game_env_factory_plays_a_game_through_its_move_tool():
    from palaestra.integrations.trl import game_env_factory

    Nim = game_env_factory("palaestra/Nim-v0", level=1)
    env = Nim()
    opening = env.reset(seed=3)
    assert "Nim" in opening
    replies = []
    while not env.done and len(replies) < 50:
        game = env.env.unwrapped.game
        replies.append(env.move(game.legal_moves()[0]))
    assert env.done and "total reward" in replies[-1] and env.get_reward() in (-1.0, 1.0)
    assert env.move("take 1 from A") == "the episode is over"
    feedback = game_env_factory("palaestra/Feedback-v0", family="expression")()
    row = task_rows(["expression"], 1, level=2)[0]
    feedback.reset(**row)
    assert feedback.env.unwrapped.task == row_to_task(row)  # the row's own task, not a fresh one
    feedback.move(f"<answer>{row_to_task(row).answer}</answer>")
    assert feedback.get_reward() == 1.0 and feedback.done


def test_game_rows_seed_every_episode_and_refuse_seedless_rows():
    from palaestra.integrations.trl import game_env_factory, game_rows

    rows = game_rows(6, seed=2)
    assert rows[:4] == game_rows(4, seed=2) and len({r["seed"] for r in rows}) == 6
    assert game_rows(6, seed=3) != rows
    Nim = game_env_factory("palaestra/Nim-v0", level=5)
    openings = {Nim().reset(**row) for row in rows}
    assert len(openings) > 1  # different seeds, different piles
    with pytest.raises(ValueError, match="seed"):
        Nim().reset(prompt=[{"role": "user", "content": ""}])  # TRL's placeholder row: one game for all


@pytest.mark.slow
@pytest.mark.parametrize(
    "env_id,env_kwargs",
    [
        ("palaestra/Nim-v0", {"level": 1}),
        ("palaestra/Mastermind-v0", {"level": 1}),
        ("palaestra/Feedback-v0", {"family": "expression", "level": 1}),
    ],
)
def test_game_env_factory_runs_through_trl_on_the_tiny_model(tmp_path, tiny_trl, env_id, env_kwargs):
    """A game, an interactive family and the feedback env, each as TRL's environment_factory: every
    rollout's env is reset from its own row's seed (a group shares its game), the move tool is in
    the prompt, and the env's reward is what TRL logs."""
    from transformers import AutoConfig, AutoModelForCausalLM

    from palaestra.integrations.trl import game_dataset, game_env_factory, use_tool_chat_template

    trl, path, tokenizer = tiny_trl
    tokenizer = use_tool_chat_template(tokenizer)
    config = AutoConfig.from_pretrained(path)
    config.max_position_embeddings = 4096
    seeds = []
    base = game_env_factory(env_id, **env_kwargs)

    class Recording(base):
        def reset(self, **row):
            seeds.append(row["seed"])
            return super().reset(**row)

    rows = game_dataset(2, seed=5)
    args = cpu_grpo_config(trl, tmp_path, max_steps=1, max_completion_length=8, num_generations=2)
    trainer = trl.GRPOTrainer(
        model=AutoModelForCausalLM.from_config(config),
        args=args,
        train_dataset=rows,
        processing_class=tokenizer,
        environment_factory=Recording,
    )
    assert [t.__name__ for t in trainer.tools] == ["move"]
    trainer.train()
    assert trainer.state.global_step == 1
    assert sorted(seeds) == sorted(2 * list(rows["seed"]))  # each row's game, once per generation
    assert "Recording" in trainer.reward_func_names  # get_reward is a reward source


@pytest.mark.slow
def test_curriculum_drives_a_trl_run(tmp_path, tiny_trl):
    """The standalone curriculum from TRL: rows drawn by next_task(), every graded completion
    recorded by the reward; a reward of 1.0 for everything moves the level up."""
    from transformers import AutoModelForCausalLM

    from palaestra.curriculum import Curriculum
    from palaestra.integrations.trl import curriculum_dataset, curriculum_reward

    trl, path, tokenizer = tiny_trl
    curriculum = Curriculum(["expression"], window=8)

    def everything_solved(completions, **columns):
        return [1.0] * len(completions)

    args = cpu_grpo_config(trl, tmp_path, max_steps=2, max_completion_length=4, shuffle_dataset=False)
    trainer = trl.GRPOTrainer(
        model=AutoModelForCausalLM.from_pretrained(path),
        reward_funcs=[curriculum_reward(curriculum, everything_solved)],
        args=args,
        train_dataset=curriculum_dataset(curriculum),
        processing_class=tokenizer,
    )
    trainer.train()
    assert curriculum.state["expression"].attempts == 8  # 2 steps x 4 completions, all recorded
    assert curriculum.level("expression") == 2 and curriculum.events[0]["to"] == 2
