// Which data a conversation asks about: a chip in the composer naming the uploaded file (switch,
// remove), kept per conversation in localStorage so it survives a reload; without a chip the
// questions go to the service's database. The table browser shows the file's tables.

import { setUpUpload } from "./empty_state.js";
import { label, t } from "./i18n.js";

const STORAGE = "sqlAgentDatasets"; // conversation id ("" for a new one) → {dataset_id, name, tables}

function stored() {
  try {
    return JSON.parse(localStorage.getItem(STORAGE) || "{}") ?? {};
  } catch {
    return {};
  }
}

function store(map) {
  localStorage.setItem(STORAGE, JSON.stringify(map));
}

/**
 * The composer's dataset chip; hooks: conversation(), user() (who uploads, as the questions
 * ask), schema() (redraw the table browser).
 */
export class DatasetChip {
  constructor(hooks) {
    this.hooks = hooks;
    this.current = null;
    this.el = document.createElement("span");
    this.el.className = "dataset-chip";
    this.el.dataset.testid = "dataset-chip";
    this.el.hidden = true;
    this.name = document.createElement("span");
    this.switch = this.smallButton("dataset-switch");
    label(this.switch, "datasetSwitch");
    this.remove = this.smallButton("dataset-remove");
    this.remove.textContent = "×";
    this.remove.addEventListener("click", () => this.choose(null));
    this.el.append(this.name, this.switch, this.remove);
    document.querySelector("#ask-form .actions")?.prepend(this.el);
  }

  smallButton(testId) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "small";
    button.dataset.testid = testId;
    return button;
  }

  /** Show the upload button when the service takes datasets; an upload becomes the chip. */
  async start(button, input, note) {
    this.switch.onclick = () => input.click();
    await setUpUpload(button, input, note, (dataset) => this.choose(dataset), this.hooks.user);
    this.available = !button.hidden;
    this.show();
  }

  /** The conversation changed (opened, started, or named by its first answer). */
  follow(conversationId) {
    const map = stored();
    // A file chosen before the first question belongs to the conversation that question made.
    if (conversationId && map[""] && !map[conversationId]) {
      map[conversationId] = map[""];
      delete map[""];
      store(map);
    }
    this.current = map[conversationId] ?? null;
    this.show();
  }

  choose(dataset) {
    const map = stored();
    const key = this.hooks.conversation();
    if (dataset) {
      const { dataset_id, name, tables } = dataset;
      map[key] = { dataset_id, name, tables };
    } else {
      delete map[key];
    }
    store(map);
    this.current = map[key] ?? null;
    this.show();
  }

  show() {
    this.el.hidden = !this.current;
    if (this.current) {
      label(this.name, "datasetChip", { name: this.current.name });
      this.remove.setAttribute("aria-label", t("datasetRemove", { name: this.current.name }));
    }
    this.hooks.schema();
  }
}
