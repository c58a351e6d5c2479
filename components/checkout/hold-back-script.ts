import { MAX_ATTEMPT_KEYS } from "@/server/domain/hosted";
import { SENT_ATTEMPT_TTL_MS, sentAttemptsName, typedNumberName } from "./sent-attempts";

/**
 * How long a held-back page waits for its island before it also says it has not loaded and offers
 * a reload: its scripts may never arrive (a dropped connection), and "Checking your payment…"
 * alone would then be a dead end. Long enough for a slow network to bring them first.
 */
export const ISLAND_STALL_MS = 8_000;

/**
 * The page's first script, inline in its HTML and run as that is read: marks the page (`data-sent`
 * on its `<main>`) when this browser kept an attempt it may still have to look up, so that until
 * the island has run, the page shows "Checking your payment…" instead of a form or "Link already
 * used" (checkout.css). Conservative: the island decides, this only holds back. If the island
 * has still not run after ISLAND_STALL_MS (its early markup, `data-if-sent`, is still there), the
 * page is marked `data-stalled` too, which shows a reload link.
 *
 * It also keeps the attempt key of a Pay tapped before the island has run (the form then posts as
 * plain HTML), as the island's own Pay does (sent-attempts.ts `withSent`): if that post's answer is
 * lost, the next load looks the attempt up instead of offering a fresh form that would charge again.
 * With it, the number the form sends (sent-attempts.ts `keepTypedNumber`): the form the next load
 * gives back with that key, should the post never have arrived, starts from the same number.
 * Once the island runs, React takes the form's submit (and prevents the browser's), and keeps the
 * key itself; a submit it prevented is left alone here, so a number it refused keeps no key.
 *
 * And it ticks the countdown of an attempt the server drew (`data-until`, `data-drawn-at`: pay-panel
 * `Countdown`) once a second, counting from when this script ran, until the island has run and
 * drawn the countdown itself (the attributes are gone), as `formatCountdown` writes it.
 *
 * Without JavaScript it never runs, and the page is as the server rendered it. Kept apart from
 * sent-attempts.ts so that none of it is in the island's bundle.
 */
export function holdBackScript(pageId: string, closed: boolean): string {
  const name = JSON.stringify(sentAttemptsName(pageId));
  const number = JSON.stringify(typedNumberName(pageId));
  // `r()`: what storage keeps for the page, as a list (an older page kept one entry); it throws when
  // storage does, which each part's try leaves at that.
  return (
    // In a function of its own: nothing of it lands on the page's globals.
    `(function(){function r(){var s=JSON.parse(localStorage.getItem(${name})||"null");return Array.isArray(s)?s:s?[s]:[]}` +
    `try{var l=r(),n=Date.now();` +
    `if(l.some(function(a){return a&&n-a.at<${SENT_ATTEMPT_TTL_MS}&&(${closed ? "true" : "false"}||!a.paymentId||!a.done)}))` +
    `{var m=document.currentScript.parentNode;m.setAttribute("data-sent","");` +
    `setTimeout(function(){if(m.querySelector("[data-if-sent]"))m.setAttribute("data-stalled","")},${ISLAND_STALL_MS})}}catch(e){}` +
    // On window, bubbling: after React's own listener (on the document) has had its say.
    `try{addEventListener("submit",function(e){try{var f=e.target.elements,k=f&&f.attempt_key&&f.attempt_key.value,s;if(e.defaultPrevented||!k)return;` +
    `try{f.msisdn&&sessionStorage.setItem(${number},f.msisdn.value)}catch(x){}` +
    `s=r();if(!s.some(function(a){return a&&a.key===k}))localStorage.setItem(${name},JSON.stringify([{key:k,at:Date.now()}].concat(s).slice(0,${MAX_ATTEMPT_KEYS})))}catch(x){}})}catch(e){}` +
    // The countdown: stopped once the page has loaded (its scripts ran) and none is left to tick.
    `try{var t=Date.now(),i=setInterval(function(){var c=document.querySelectorAll("[data-until]"),j,e,s;` +
    `if(!c.length&&document.readyState==="complete")return clearInterval(i);` +
    `for(j=0;j<c.length;j++){e=c[j];s=Math.max(0,Math.ceil((Date.parse(e.getAttribute("data-until"))-Date.parse(e.getAttribute("data-drawn-at"))-(Date.now()-t))/1e3));` +
    `e.textContent=Math.floor(s/60)+":"+(s%60<10?"0":"")+s%60}},1e3)}catch(e){}})()`
  );
}
