import { ActionIcon, Button, Card, Group, Modal, Select, Stack, Text } from "@mantine/core";
import { useState } from "react";
import type { DeliveryInterface } from "../../api/types";
import { InterfaceForm } from "../interface-form";
import { type Loose, type ObjectField, ObjectFields } from "./object-fields";

const message: ObjectField = {
  name: "message",
  label: "Message",
  kind: "textarea",
  description: "Liquid; {{ run.reportUrl }} links the report.",
};

/** What each interface type reads of a binding (src/schemas/delivery.ts). */
function bindingFields(item: DeliveryInterface | undefined): ObjectField[] {
  switch (item?.type) {
    case "webhook":
      return item.config.allowJobBody
        ? [message, { name: "jsonBody", label: "JSON body (replaces the interface's)", kind: "textarea", code: true }]
        : [message];
    case "slack":
      return [message];
    case "smtp":
    case "mailgun":
      return [
        { name: "subject", label: "Subject", kind: "text" },
        { name: "recipients", label: "Recipients", kind: "tags", required: true, placeholder: "ops@example.com" },
        message,
        { name: "attach", label: "Attach", kind: "select", options: ["pdf", "html", "none"] },
      ];
    case "s3":
      return [{ name: "formats", label: "Files to upload", kind: "multiselect", options: ["pdf", "html"] }];
    default:
      return [message];
  }
}

/** A binding moved to another interface keeps the fields that interface's type reads too. */
function rebind(binding: Loose, target: DeliveryInterface | undefined): Loose {
  const next: Loose = { interfaceId: target?.id ?? null };
  for (const field of bindingFields(target)) {
    if (binding[field.name] !== undefined) next[field.name] = binding[field.name];
  }
  return next;
}

/** Where the report goes: one binding per interface of the space. */
export function DeliveryTab(props: {
  deliveries: Loose[];
  onChange: (deliveries: Loose[]) => void;
  errors: Record<string, string>;
  disabled: boolean;
  interfaces: DeliveryInterface[];
  /** Space admins may create an interface from here. */
  canCreate: boolean;
}) {
  const { deliveries, onChange, errors, disabled, interfaces } = props;
  const [creating, setCreating] = useState(false);
  const options = interfaces.map((i) => ({ value: i.id, label: `${i.name} (${i.type})` }));
  return (
    <Stack maw={820}>
      {deliveries.length === 0 && (
        <Text c="dimmed" size="sm">
          No delivery: runs keep their report, and nobody is sent it.
        </Text>
      )}
      {interfaces.length === 0 && (
        <Text c="dimmed" size="sm">
          This space has no delivery interface yet
          {props.canCreate ? ": create one here." : "; a space admin sets them up under Delivery interfaces."}
        </Text>
      )}
      {deliveries.map((binding, index) => {
        const path = `deliveries.${index}`;
        const item = interfaces.find((i) => i.id === binding.interfaceId);
        return (
          // biome-ignore lint/suspicious/noArrayIndexKey: bindings have no id; their place is their identity
          <Card component="section" key={index} withBorder padding="sm" aria-label={`Delivery ${index + 1}`}>
            <Stack gap="xs">
              <Group justify="space-between" align="flex-end" wrap="nowrap">
                <Select
                  label="Interface"
                  data={options}
                  value={binding.interfaceId ?? null}
                  required
                  disabled={disabled}
                  error={errors[`${path}.interfaceId`]}
                  onChange={(v) =>
                    onChange(
                      deliveries.map((d, i) =>
                        i === index
                          ? rebind(
                              d,
                              interfaces.find((x) => x.id === v),
                            )
                          : d,
                      ),
                    )
                  }
                  style={{ flex: 1 }}
                />
                {!disabled && (
                  <ActionIcon
                    variant="subtle"
                    color="red"
                    aria-label={`Remove delivery ${index + 1}`}
                    onClick={() => onChange(deliveries.filter((_, i) => i !== index))}
                    mb={4}
                  >
                    ✕
                  </ActionIcon>
                )}
              </Group>
              <ObjectFields
                fields={bindingFields(item)}
                value={binding}
                onChange={(b) => onChange(deliveries.map((d, i) => (i === index ? b : d)))}
                errors={errors}
                path={path}
                disabled={disabled}
              />
            </Stack>
          </Card>
        );
      })}
      {!disabled && (
        <Button
          variant="light"
          w="fit-content"
          disabled={interfaces.length === 0}
          onClick={() => onChange([...deliveries, { interfaceId: interfaces[0]?.id, message: "{{ run.reportUrl }}" }])}
        >
          Add a delivery
        </Button>
      )}
      {!disabled && props.canCreate && (
        <Button variant="subtle" w="fit-content" onClick={() => setCreating(true)}>
          Create an interface
        </Button>
      )}
      <Modal opened={creating} onClose={() => setCreating(false)} title="New delivery interface">
        {creating && (
          <InterfaceForm
            onDone={(saved) => {
              setCreating(false);
              // The new interface is bound at once: that is why it was made here.
              if (saved) onChange([...deliveries, { interfaceId: saved.id, message: "{{ run.reportUrl }}" }]);
            }}
          />
        )}
      </Modal>
    </Stack>
  );
}
