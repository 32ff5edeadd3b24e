// The conversation list (a drawer on a phone): search, pick, rename and delete.

import {
  deleteConversation,
  fetchConversations,
  renameConversation,
  showConversationList,
} from "./history.js";
import { currentLang, label, t } from "./i18n.js";

const SEARCH_DELAY_MS = 250;

/** The sidebar's list; `hooks` give the user, the open conversation and what a pick does. */
export class ConversationList {
  constructor(hooks) {
    this.hooks = hooks;
    this.list = document.getElementById("conversation-list");
    this.note = document.getElementById("history-note");
    this.search = document.getElementById("history-search");
    if (!this.search) return; // a page without the list (an embedding) has nothing to fill
    let timer = null;
    this.search.addEventListener("input", () => {
      clearTimeout(timer);
      timer = setTimeout(() => this.refresh(), SEARCH_DELAY_MS);
    });
  }

  async refresh() {
    if (!this.list) return;
    try {
      const user = this.hooks.user();
      const search = this.search.value.trim();
      const items = await fetchConversations(user, currentLang(), search);
      const actions = {
        open: this.hooks.open,
        rename: (threadId, title) => this.rename(threadId, title),
        remove: (threadId) => this.remove(threadId),
      };
      showConversationList(this.list, items, this.hooks.active(), actions, search);
      this.note.hidden = true;
    } catch {
      label(this.note, "historyFailed");
      this.note.hidden = false;
    }
  }

  async rename(threadId, title) {
    const entered = window.prompt(t("renamePrompt"), title ?? "");
    if (entered === null) return;
    await renameConversation(threadId, entered.trim()).catch(() => {});
    this.refresh();
  }

  async remove(threadId) {
    if (!window.confirm(t("deleteConfirm"))) return;
    await deleteConversation(threadId).catch(() => {});
    this.hooks.removed(threadId);
    this.refresh();
  }
}
