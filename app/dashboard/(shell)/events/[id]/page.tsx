import { EventDetail } from "@/components/dashboard/events/event-detail";

export const metadata = { title: "Event" };

// /dashboard/events/[id] – one event: payload, deliveries with attempts, replay
export default async function EventPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <EventDetail id={id} />;
}
