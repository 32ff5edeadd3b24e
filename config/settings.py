"""The service's settings, read once from environment variables and `.env`."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from config.access_settings import AccessSettings
from config.audit_settings import AuditSettings
from config.clarify_settings import ClarifySettings
from config.data_source_settings import DataSourceSettings
from config.model_call_settings import ModelCallSettings
from config.observability_settings import ObservabilitySettings
from config.postgres_settings import PostgresSettings
from config.quality_settings import QualitySettings
from config.quota_settings import QuotaSettings
from config.schema_settings import SchemaSettings


class Settings(
    AccessSettings,
    ClarifySettings,
    QualitySettings,
    ModelCallSettings,
    AuditSettings,
    QuotaSettings,
    ObservabilitySettings,
    SchemaSettings,
    DataSourceSettings,
    PostgresSettings,
    BaseSettings,
):
    """Every setting of the service; each field is the upper-case environment variable."""

    model_config = SettingsConfigDict(
        env_file=".env", env_file_encoding="utf-8", extra="ignore", case_sensitive=False
    )

    # --- LLM (any OpenAI-compatible server) ---
    openai_api_key: SecretStr | None = Field(
        default=None,
        description="API key of the OpenAI-compatible server (a secret: never logged or reported).",
    )
    openai_base_url: str | None = Field(
        default=None,
        description="Base URL of any OpenAI-compatible server, e.g. http://127.0.0.1:11434/v1; "
        "unset: OpenAI's.",
    )
    llm_model: str = Field(default="gpt-4o-mini", description="Chat model name.")
    llm_temperature: float = Field(
        default=0.0, ge=0.0, le=2.0, description="Sampling temperature of the chat model."
    )
    llm_timeout: float = Field(
        default=60.0,
        gt=0,
        description="Seconds a whole model call may take, streamed or not, retries included "
        "(then 504 LLM_TIMEOUT).",
    )
    llm_max_tokens: int = Field(
        default=2048,
        ge=0,
        description="Most tokens the model may write in one reply (sent as max_tokens); a "
        "reply cut there is a model fault (LLM_ANSWER_TOO_LONG), not a hang. Small local "
        "models ramble until their context is full without it. 0: send no bound.",
    )
    llm_max_retries: int = Field(
        default=2, ge=0, le=10, description="Retries of a failed model call."
    )

    # --- Databases ---
    data_database_url: str | None = Field(
        default=None,
        description="Database the questions are about: sqlite:///relative.db, "
        "sqlite:////absolute.db, postgresql://…, mysql://… (also mariadb://: MySQL or "
        "MariaDB), duckdb:///folder (a folder of data files, one file, or a .duckdb file), "
        "clickhouse://… (a ClickHouse server over HTTP) or chdb:///folder?database=db "
        "(embedded ClickHouse); default: the embedded sample.",
    )
    checkpoint_database_url: str | None = Field(
        default=None,
        description="Where conversations are kept: sqlite:///…, postgresql://… or memory; "
        "default: sqlite:///$DATA_DIR/checkpoints.db.",
    )
    data_dir: Path = Field(default=Path("data"), description="Directory for local state.")
    checkpoint_durability: Literal["sync", "async", "exit"] = Field(
        default="sync",
        description="When checkpoints are written: after every step (sync: a crash loses no "
        "finished step, and /status sees the current node), while the next step runs (async), "
        "or once at the end (exit: cheapest, but a crash loses the whole question).",
    )

    # --- Agent ---
    recursion_limit: int = Field(
        default=40,
        ge=8,
        le=500,
        description="LangGraph steps per question; near it the agent answers that it ran out "
        "of steps.",
    )
    trim_max_turns: int = Field(
        default=10, ge=1, description="Most recent question/answer turns the model sees."
    )
    trim_max_tokens: int = Field(
        default=12000,
        ge=500,
        description="Approximate token budget of what the model sees (whole turns are "
        "dropped, oldest first).",
    )
    # --- Agent: conversation history (turn blocks) ---
    history_mode: Literal["blocks", "window"] = Field(
        default="blocks",
        description="blocks: the model sees an index of earlier turns, the latest turn in "
        "full and the current one, and fetches older turns with the history tools; "
        "window: the newest TRIM_MAX_TURNS whole turns.",
    )
    history_index_max: int = Field(
        default=10,
        ge=0,
        description="Most earlier turns listed in the prompt in blocks mode (newest first); "
        "list_history pages through the rest.",
    )
    sql_row_limit: int = Field(
        default=1000,
        ge=1,
        description="Rows returned per query (beyond it, is_limited and the true total_row_count).",
    )
    sql_preview_rows: int = Field(
        default=20, ge=1, description="Rows of a result shown to the model."
    )
    sql_timeout: float = Field(default=15.0, gt=0, description="Seconds per SQL query.")
    export_row_limit: int = Field(
        default=100_000,
        ge=1,
        description="Most rows a CSV export of a query result holds (read in batches, "
        "each within SQL_TIMEOUT).",
    )
    sql_allowed_tables: str = Field(
        default="all",
        description=(
            "Tables the model's SQL may read: all, or a comma-separated list such as "
            "orders,order_items,public.customers. System catalogs are never allowed."
        ),
    )
    sql_approval: Literal["never", "always"] = Field(
        default="never",
        description="always: every query waits for a person to approve, edit or reject it; "
        "never: only requests with approve_sql=true wait.",
    )
    run_timeout: float = Field(
        default=300.0, gt=0, description="Seconds a whole question may take (then 504)."
    )
    stream_heartbeat: float = Field(
        default=15.0, gt=0, description="Seconds between `: ping` comments on an idle stream."
    )
    stream_resume_grace: float = Field(
        default=5.0,
        ge=0,
        description="Seconds a run goes on after its stream client left, waiting for it "
        "to reconnect with Last-Event-ID; then the run is cancelled.",
    )
    run_events_ttl: float = Field(
        default=120.0,
        gt=0,
        description="Seconds a finished streamed run's events stay resumable (with "
        "Last-Event-ID, on any worker); then they are deleted.",
    )
    runs_max_active: int | Literal["auto"] = Field(
        default="auto",
        description="Most questions answered at once per process: a number (0: no limit), or "
        "auto: 16 per CPU core this process may use, doubled while questions wait and the "
        "process leaves a core idle; more wait in FIFO order, their streams showing a "
        "`__queued__` progress event with their place.",
    )
    runs_max_queued: int = Field(
        default=1000,
        ge=0,
        description="Most questions waiting per process when RUNS_MAX_ACTIVE are running; "
        "one more gets 503 QUEUE_FULL with a Retry-After header.",
    )
    stream_retry_ms: int = Field(
        default=2000, ge=0, description="Reconnection delay the stream asks EventSource for."
    )
    agent_language_hint: str = Field(
        default="Answer in the language of the question.",
        description="Extra instruction appended to the system prompt.",
    )

    # --- Memory: ratings, question→SQL examples and notes (see react_agent/memory) ---
    memory: bool = Field(
        default=True,
        description="Put the stored examples most like each question in the model's prompt and "
        "give it the search_examples tool. Off, the feedback and training-data endpoints "
        "still work.",
    )
    memory_database_url: str | None = Field(
        default=None,
        description="Where ratings and examples are kept: sqlite:///…, postgresql://… or "
        "memory; default: the checkpointer's PostgreSQL, else memory.db next to the "
        "checkpoint file (never the data database).",
    )
    memory_examples_k: int = Field(
        default=5, ge=0, le=50, description="Most examples and notes put in front of the model."
    )
    memory_prompt_budget_chars: int = Field(
        default=4000, ge=0, description="Most characters those examples take in the prompt."
    )
    embedding_model: str | None = Field(
        default=None,
        description="Embedding model on the same OpenAI-compatible server; when set, examples "
        "are also found by vector similarity, fused with the lexical rank.",
    )
    # --- Sub-agents (react_agent/subagents) ---
    subagents: bool = Field(
        default=True,
        description="Give the agent the delegate tool, which hands the parts of a multi-part "
        "question to isolated SQL sub-agents that run at the same time; off removes it.",
    )
    subagents_max_parallel: int = Field(
        default=4, ge=1, le=32, description="Most sub-agents of one delegate call running at once."
    )
    subagent_recursion_limit: int = Field(
        default=25, ge=8, le=500, description="Each sub-agent's step limit (like RECURSION_LIMIT)."
    )
    delegate_max_tasks: int = Field(
        default=5,
        ge=1,
        le=64,
        description="Most sub-questions one delegate call may hand out; a call with more is "
        "refused as a tool error the model can act on.",
    )
    delegate_max_tasks_per_question: int = Field(
        default=10,
        ge=1,
        le=256,
        description="Most sub-questions one question may hand to sub-agents in all (each "
        "also counts against the asker's questions-per-minute quota).",
    )

    # --- HTTP ---
    workers: int = Field(
        default=1,
        ge=1,
        description="Processes serving HOST:PORT (`python -m app --workers N` overrides it); "
        "more than one needs CHECKPOINT_DATABASE_URL on PostgreSQL.",
    )
    host: str = Field(
        default="127.0.0.1",
        description="Address `python -m app` listens on; 0.0.0.0 for a load balancer on "
        "another machine.",
    )
    port: int = Field(default=8084, ge=0, le=65535, description="Port `python -m app` listens on.")
    log_level: str = Field(default="INFO", description="Logging level (DEBUG, INFO, WARNING…).")
    body_timeout: float = Field(
        default=60.0,
        gt=0,
        description="Seconds a client may take to send a request body; a slower one gets 408.",
    )
    shutdown_grace: float = Field(
        default=20.0,
        ge=0,
        description="On SIGTERM, seconds running questions get to finish before they are "
        "ended with an error event.",
    )

    # --- Reach: OpenAI-compatible endpoint, MCP and API keys ---
    agent_model_name: str = Field(
        default="sql-react-agent",
        description="The one model id /v1/models lists and /v1/chat/completions accepts.",
    )
    api_keys: SecretStr | None = Field(
        default=None,
        description="API keys; unset (the default) leaves the service open. `key` or "
        "`key=alice,bob` (bound to those user ids), several separated by `;`.",
    )
    api_keys_file: Path | None = Field(
        default=None, description="A file of API keys, one `key` or `key=alice,bob` a line."
    )

    @field_validator(
        "openai_base_url",
        "data_database_url",
        "checkpoint_database_url",
        "memory_database_url",
        "embedding_model",
    )
    @classmethod
    def _blank_is_unset(cls, value: str | None) -> str | None:
        # An empty line in .env (OPENAI_BASE_URL=) means "not set", not "the empty URL".
        return value.strip() or None if value is not None else None

    @field_validator("api_keys_file", mode="before")
    @classmethod
    def _blank_path_is_unset(cls, value: object) -> object:
        # API_KEYS_FILE= in .env means "no file", not the current directory.
        return None if isinstance(value, str) and not value.strip() else value

    @field_validator("runs_max_active", mode="before")
    @classmethod
    def _auto_or_a_count(cls, value: object) -> object:
        # RUNS_MAX_ACTIVE=AUTO as well as auto; a negative count is refused.
        if isinstance(value, str) and value.strip().lower() == "auto":
            return "auto"
        if isinstance(value, int | str) and str(value).strip().lstrip("-").isdigit():
            if int(value) < 0:
                raise ValueError("RUNS_MAX_ACTIVE is auto or a count of 0 or more")
        return value

    @property
    def llm_configured(self) -> bool:
        """Whether an LLM endpoint was given (a key for OpenAI, or a base URL for others)."""
        return bool(self.openai_base_url) or bool(
            self.openai_api_key and self.openai_api_key.get_secret_value()
        )

    @property
    def allowed_tables(self) -> frozenset[str] | None:
        """SQL_ALLOWED_TABLES as lower-case names, or None when it is "all" (or blank)."""
        value = self.sql_allowed_tables.strip()
        if value.lower() in ("", "all"):
            return None
        return frozenset(name.strip().lower() for name in value.split(",") if name.strip())

    @property
    def resolved_checkpoint_database_url(self) -> str:
        """The checkpointer URL, defaulting to a SQLite file in the data directory."""
        return self.checkpoint_database_url or f"sqlite:///{self.data_dir / 'checkpoints.db'}"

    @property
    def resolved_memory_database_url(self) -> str:
        """The memory's URL: its own setting, else the checkpointer's PostgreSQL, else SQLite.

        The SQLite file is memory.db in the checkpoint file's directory (the data
        directory when conversations are kept in memory).
        """
        if self.memory_database_url:
            return self.memory_database_url
        checkpoint_url = self.resolved_checkpoint_database_url
        scheme = checkpoint_url.split(":", 1)[0].split("+")[0].lower()
        if scheme in ("postgresql", "postgres"):
            return checkpoint_url
        if scheme == "sqlite":
            path = checkpoint_url.split(":///", 1)[-1]
            return f"sqlite:///{Path(path).parent / 'memory.db'}"
        return f"sqlite:///{self.data_dir / 'memory.db'}"
