import { Alert, Button, Group, NumberInput, Select, Stack, Switch, Text, TextInput, Title } from "@mantine/core";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useEffect, useState } from "react";
import { useOutletContext } from "react-router";
import { ApiError, get, issuesByField, put } from "../api/client";
import { useInterfaces } from "../api/queries";
import type { Context } from "../api/types";
import { ErrorAlert } from "../components/error-alert";
import { PageLoader } from "../components/page-loader";

type Settings = {
  enabled: boolean;
  deliveryInterfaceId: string | null;
  space: string;
  recipient: string | null;
  checkEveryMinutes: number;
  minIntervalMinutes: number | null;
};
const PATH = "/ui-api/admin/settings/health-alerts";

/** Health alerts: a message when job colours change, through an interface of a space. */
export default function SettingsHealthAlertsPage() {
  const context = useOutletContext<Context>();
  const stored = useQuery({ queryKey: ["health-alerts"], queryFn: () => get<Settings>(PATH) });
  const [form, setForm] = useState<Settings | null>(null);
  useEffect(() => {
    if (stored.data) setForm(stored.data);
  }, [stored.data]);
  const interfaces = useInterfaces(form?.space ?? "default");
  const queryClient = useQueryClient();
  const save = useMutation({
    mutationFn: (body: Settings) => put<Settings>(PATH, body),
    onSuccess: (saved) => queryClient.setQueryData(["health-alerts"], saved),
  });
  if (stored.isPending) return <PageLoader />;
  if (!form) return <ErrorAlert error={stored.error} title="The settings cannot be read" />;
  const errors = issuesByField(save.error);
  const set = (change: Partial<Settings>) => {
    setForm({ ...form, ...change });
    save.reset();
  };
  const chosen = interfaces.data?.find((i) => i.id === form.deliveryInterfaceId);
  const email = chosen?.type === "smtp" || chosen?.type === "mailgun";
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate(form);
  };
  return (
    <form onSubmit={submit} noValidate>
      <Stack maw={640}>
        <Title order={1} size="h2">
          Health alerts
        </Title>
        <Text size="sm" c="dimmed">
          A monitor checks the jobs' health and sends one message when colours change (which jobs, old → new colour).
        </Text>
        <Switch
          label="Enable health alerts"
          checked={form.enabled}
          onChange={(e) => set({ enabled: e.currentTarget.checked })}
        />
        <Select
          label="Space of the interface"
          data={context.spaces.map((s) => ({ value: s.id, label: s.name }))}
          value={form.space}
          allowDeselect={false}
          onChange={(v) => set({ space: v ?? "default", deliveryInterfaceId: null })}
          error={errors.space}
        />
        <Select
          label="Delivery interface"
          placeholder={
            interfaces.data?.length ? "Choose the interface that sends the alerts" : "This space has no interface"
          }
          data={(interfaces.data ?? []).map((i) => ({ value: i.id, label: `${i.name} (${i.type})` }))}
          value={form.deliveryInterfaceId}
          onChange={(v) => set({ deliveryInterfaceId: v })}
          error={errors.deliveryInterfaceId}
          clearable
        />
        {(email || form.recipient) && (
          <TextInput
            label="Recipient e-mail"
            type="email"
            value={form.recipient ?? ""}
            onChange={(e) => set({ recipient: e.currentTarget.value || null })}
            error={errors.recipient}
          />
        )}
        <Group grow align="flex-start">
          <NumberInput
            label="Check every (minutes)"
            min={1}
            max={1440}
            value={form.checkEveryMinutes}
            onChange={(v) => set({ checkEveryMinutes: Number(v) || 5 })}
            error={errors.checkEveryMinutes}
          />
          <NumberInput
            label="At most one alert every (minutes)"
            description="Empty: no minimum."
            min={1}
            value={form.minIntervalMinutes ?? ""}
            onChange={(v) => set({ minIntervalMinutes: v === "" ? null : Number(v) })}
            error={errors.minIntervalMinutes}
          />
        </Group>
        {save.error && !(save.error instanceof ApiError && save.error.status === 400) ? (
          <ErrorAlert error={save.error} />
        ) : null}
        {save.isSuccess && (
          <Alert color="green" role="status">
            Saved.
          </Alert>
        )}
        <Button type="submit" loading={save.isPending} w="fit-content">
          Save
        </Button>
      </Stack>
    </form>
  );
}
