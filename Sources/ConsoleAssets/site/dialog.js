// The one confirmation every revocation asks for: dialog#confirm (index.html), opened modal, answered by
// #confirm-yes or #confirm-no (Escape is a no). A revocation cannot be undone from the console.
const $ = (id) => document.getElementById(id);

let answer = null;

function close(value) {
  const dialog = $("confirm");
  if (dialog.open) dialog.close();
  const settle = answer;
  answer = null;
  settle?.(value);
}

export function wireConfirm() {
  $("confirm-yes").addEventListener("click", () => close(true));
  $("confirm-no").addEventListener("click", () => close(false));
  // Escape closes a modal dialog by itself: that is a no, and the promise still settles. (The event comes a task
  // later; by then another question may be open, which it leaves alone.)
  $("confirm").addEventListener("close", () => {
    if (!$("confirm").open) close(false);
  });
}

/** Asks `question` (a heading), explained by `explanation`, the yes button saying `yes`: whether it was confirmed.
 *  The no button has the focus first, so Enter pressed by habit revokes nothing. */
export function confirm({ question, explanation, yes, subject = "" }) {
  close(false);
  $("confirm-heading").textContent = question;
  $("confirm-text").textContent = explanation;
  $("confirm-yes").textContent = yes;
  $("confirm").dataset.subject = subject;
  return new Promise((resolve) => {
    answer = resolve;
    $("confirm").showModal();
    $("confirm-no").focus();
  });
}
