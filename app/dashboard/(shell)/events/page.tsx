import { Suspense } from "react";
import { EventLog } from "@/components/dashboard/events/event-log";
import { Loading } from "@/components/ui/states";

export const metadata = { title: "Events" };

// /dashboard/events – the event log, filtered by type and time in the query string
export default function EventsPage() {
  return (
    <Suspense fallback={<Loading what="events" />}>
      <EventLog />
    </Suspense>
  );
}
