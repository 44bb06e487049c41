/** A server's refusal as a list of messages under the field it is about, announced. */
export function ErrorList({ messages }: { messages?: string[] }) {
  if (!messages?.length) return null;
  return (
    <ul className="field-error" role="alert" style={{ margin: 0, paddingLeft: '1.25rem' }}>
      {messages.map((m) => (
        <li key={m}>{m}</li>
      ))}
    </ul>
  );
}
