// The console's two actions, each behind the confirmation dialog: revoking every card of a member (a card seen
// at two shops at once was copied, or lent), and revoking a counter device (lost, stolen, or a till retired).
// Each answer is said on the status line, and the panels it changes are fetched again.
import { post } from "./api.js";
import { confirm } from "./dialog.js";
import { button, problemText } from "./dom.js";
import { inLine, text } from "./texts.js";

/** button.revoke-cards[data-member=uuid] for `member` ({uuid, name, membershipID, revoked}); disabled, saying
 *  why, when its cards are revoked already or there is no member record to revoke them from. */
export function revokeCardsButton({ uuid, name, membershipID, revoked = false }, ctx) {
  if (!uuid) return button(text("revoke_cards.no_member"), null, { className: "revoke-cards as-label", disabled: true });
  if (revoked) return button(text("revoke_cards.revoked"), null, { className: "revoke-cards as-label", disabled: true }, { member: uuid, revoked: "true" });
  const who = inLine(name || membershipID || uuid);
  return button(text("revoke_cards.button"), async (event) => {
    const target = event.currentTarget;
    const confirmed = await confirm({
      question: text("revoke_cards.question", { name: who }),
      explanation: text("revoke_cards.explanation", { name: who, membership_id: inLine(membershipID ?? uuid) }),
      yes: text("revoke_cards.yes"),
      subject: uuid,
    });
    if (!confirmed) return;
    target.disabled = true;
    try {
      await post(`api/members/${encodeURIComponent(uuid)}/revoke-cards`);
      ctx.status(text("revoke_cards.done", { name: who }), "done");
      ctx.refresh(["anomalies", "members", "audit"]);
    } catch (error) {
      target.disabled = false;
      ctx.status(problemText(error), "error");
    }
  }, { className: "revoke-cards" }, { member: uuid });
}

/** button.revoke-device[data-credential=id] for an active `device` of the counters panel. */
export function revokeDeviceButton(device, ctx) {
  const values = { label: inLine(device.label || device.credential_id), shop: inLine(device.vendor_name ?? "") };
  return button(text("revoke_device.button"), async (event) => {
    const target = event.currentTarget;
    const confirmed = await confirm({
      question: text("revoke_device.question", values),
      explanation: text("revoke_device.explanation", values),
      yes: text("revoke_device.yes"),
      subject: device.credential_id,
    });
    if (!confirmed) return;
    target.disabled = true;
    try {
      await post(`api/credentials/${encodeURIComponent(device.credential_id)}/revoke`);
      ctx.status(text("revoke_device.done", values), "done");
      ctx.refresh(["counters", "audit"]);
    } catch (error) {
      target.disabled = false;
      ctx.status(problemText(error), "error");
    }
  }, { className: "revoke-device", ariaLabel: text("revoke_device.name", values) }, { credential: device.credential_id });
}
