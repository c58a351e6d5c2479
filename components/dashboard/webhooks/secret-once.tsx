"use client";

import { useRef, useState } from "react";

/**
 * A signing secret shown the one time it exists in the clear, with a copy button. Where the
 * clipboard API is refused (plain http, an old browser), the text is selected for Ctrl+C instead.
 */
export function SecretOnce({ secret, title, children, onDone }: { secret: string; title: string; children?: React.ReactNode; onDone: () => void }) {
  const [copied, setCopied] = useState<"copied" | "selected" | null>(null);
  const box = useRef<HTMLElement>(null);
  const selectText = () => {
    const el = box.current;
    if (!el) return;
    const range = document.createRange();
    range.selectNodeContents(el);
    const sel = window.getSelection();
    sel?.removeAllRanges();
    sel?.addRange(range);
  };
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(secret);
      setCopied("copied");
    } catch {
      selectText();
      setCopied("selected");
    }
  };
  return (
    <section className="panel secret-once" aria-labelledby="secret-once-title">
      <h2 id="secret-once-title">{title}</h2>
      <p className="warning">Copy it now: this secret will not be shown again. If you lose it, roll the secret to get a new one.</p>
      <code className="secret" ref={box} onClick={selectText}>
        {secret}
      </code>
      <div className="actions">
        <button type="button" className="primary" onClick={() => void copy()}>
          Copy secret
        </button>
        <span role="status" className="muted">
          {copied === "copied" ? "Copied to the clipboard." : copied === "selected" ? "Selected: press Ctrl+C (⌘C) to copy." : ""}
        </span>
      </div>
      {children}
      <button type="button" onClick={onDone}>
        I have stored it
      </button>
    </section>
  );
}
