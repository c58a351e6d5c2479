import { count, plural } from "@/components/ui/plural";
import { formatAmount, type Currency } from "@/server/domain/money";

type Day = { date: string; volume: Record<Currency, number>; succeeded: number; total: number };

const SLOT = 10;
const H = 100;

const shortDate = (d: string) => `${Number(d.slice(8, 10))}/${Number(d.slice(5, 7))}`;

/**
 * Bars of succeeded volume per day as inline SVG stretched to the box, with the day labels in
 * HTML below it so they stay legible at any width. Each bar says its figure on hover, and the
 * whole chart has a text summary for screen readers.
 */
export function VolumeChart({ days, currency }: { days: Day[]; currency: Currency }) {
  const max = Math.max(0, ...days.map((d) => d.volume[currency]));
  const total = days.reduce((s, d) => s + d.volume[currency], 0);
  const W = days.length * SLOT;
  return (
    <figure className="chart-figure">
      <svg className="chart" viewBox={`0 0 ${W} ${H}`} preserveAspectRatio="none" role="img" aria-labelledby="chart-title">
        <title id="chart-title">{`Succeeded ${currency} volume per day, ${days[0]?.date} to ${days.at(-1)?.date}: ${formatAmount(total, currency)} in all`}</title>
        {[0.25, 0.5, 0.75].map((f) => (
          <line key={f} className="grid" x1={0} x2={W} y1={H * f} y2={H * f} vectorEffect="non-scaling-stroke" />
        ))}
        <line className="baseline" x1={0} x2={W} y1={H} y2={H} vectorEffect="non-scaling-stroke" />
        {days.map((d, i) => {
          const v = d.volume[currency];
          const h = max === 0 ? 0 : Math.max(v > 0 ? 1.5 : 0, (v / max) * (H - 4));
          return (
            <rect key={d.date} className="bar" x={i * SLOT + 1.5} y={H - h} width={SLOT - 3} height={h}>
              <title>{`${d.date}: ${formatAmount(v, currency)} from ${count(d.succeeded)} succeeded of ${plural(d.total, "payment")}`}</title>
            </rect>
          );
        })}
      </svg>
      <div className="chart-days" aria-hidden="true" style={{ gridTemplateColumns: `repeat(${days.length}, 1fr)` }}>
        {days.map((d, i) => (
          <span key={d.date}>{(days.length - 1 - i) % 2 === 0 ? shortDate(d.date) : ""}</span>
        ))}
      </div>
      <figcaption className="hint">
        {max === 0 ? `No succeeded ${currency} payments in the last 14 days.` : `Highest day: ${formatAmount(max, currency)}. Days are Harare calendar days; a payment counts on the day it was created.`}
      </figcaption>
    </figure>
  );
}
