import { serve } from "inngest/next";
import { inngest } from "@/server/jobs/inngest/client";
import { functions } from "@/server/jobs/inngest/functions";

// GET|POST|PUT /api/inngest – Inngest invokes the durable functions here
export const { GET, POST, PUT } = serve({ client: inngest, functions });
