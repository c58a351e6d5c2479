import type { ReactNode } from "react";

/** The three states every data view has besides its data. */
export function Loading({ what }: { what: string }) {
  return (
    <p className="muted" role="status" aria-live="polite">
      Loading {what}…
    </p>
  );
}

export function Empty({ children }: { children: ReactNode }) {
  return <div className="panel muted">{children}</div>;
}

export function Failed({ message, retry }: { message: string; retry?: () => void }) {
  return (
    <div className="warning" role="alert">
      {message}{" "}
      {retry ? (
        <button type="button" className="link-button" onClick={retry}>
          Try again
        </button>
      ) : null}
    </div>
  );
}
