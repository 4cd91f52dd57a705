import { Group, NumberInput, PasswordInput, Select, SimpleGrid, Stack, Text, TextInput, Title } from "@mantine/core";
import type { Loose } from "./object-fields";
import { StepTree } from "./step-list";

type Props = {
  capture: Loose;
  onChange: (capture: Loose) => void;
  errors: Record<string, string>;
  disabled: boolean;
  providers: { value: string; label: string }[];
};

/** The browser settings and the ordered steps of the capture. */
export function CaptureTab({ capture, onChange, errors, disabled, providers }: Props) {
  const viewport = capture.viewport ?? {};
  const auth = capture.auth ?? { type: "none" };
  return (
    <Stack>
      <SimpleGrid cols={{ base: 1, xs: 2 }} maw={520}>
        <NumberInput
          label="Viewport width (px)"
          value={viewport.width ?? 1440}
          min={320}
          max={3840}
          disabled={disabled}
          error={errors["capture.viewport.width"]}
          onChange={(v) => onChange({ ...capture, viewport: { ...viewport, width: Number(v) || 1440 } })}
        />
        <NumberInput
          label="Viewport height (px)"
          value={viewport.height ?? 900}
          min={200}
          max={4320}
          disabled={disabled}
          error={errors["capture.viewport.height"]}
          onChange={(v) => onChange({ ...capture, viewport: { ...viewport, height: Number(v) || 900 } })}
        />
      </SimpleGrid>
      <Group align="flex-end" maw={720}>
        <Select
          label="HTTP authentication"
          data={[
            { value: "none", label: "None" },
            { value: "basic", label: "Basic (user name and password)" },
          ]}
          value={auth.type}
          allowDeselect={false}
          disabled={disabled}
          onChange={(v) =>
            onChange({ ...capture, auth: v === "basic" ? { type: "basic", username: "" } : { type: "none" } })
          }
        />
        {auth.type === "basic" && (
          <>
            <TextInput
              label="User name"
              value={auth.username ?? ""}
              disabled={disabled}
              error={errors["capture.auth.username"]}
              onChange={(e) => onChange({ ...capture, auth: { ...auth, username: e.currentTarget.value } })}
            />
            <PasswordInput
              label="Password"
              autoComplete="off"
              value={auth.password ?? ""}
              disabled={disabled}
              error={errors["capture.auth.password"]}
              onChange={(e) => onChange({ ...capture, auth: { ...auth, password: e.currentTarget.value } })}
            />
          </>
        )}
      </Group>
      <Title order={3} size="h5">
        Steps
      </Title>
      {errors["capture.steps"] && (
        <Text c="red" size="sm" role="alert">
          {errors["capture.steps"]}
        </Text>
      )}
      {!disabled && (
        <Text size="sm" c="dimmed">
          Steps run in order. Move a step by dragging its handle or with its arrow buttons, also into and out of the
          branches of an if. Under the fields that take {"{{ variable }}"} or an expression, the names stored by the
          steps before are offered.
        </Text>
      )}
      <StepTree
        steps={capture.steps ?? []}
        onChange={(steps) => onChange({ ...capture, steps })}
        errors={errors}
        disabled={disabled}
        providers={providers}
      />
    </Stack>
  );
}
