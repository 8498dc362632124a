/**
 * The buyer's page in its two languages. Russian is the default (the service is Russian: RUB, SBP); English is
 * chosen by `Accept-Language` or forced with `?lang=en`. Every string the page shows is here, so that a wording
 * change is made once for both languages.
 */

/** The page's languages; the first is the default. */
export const PAGE_LANGS = ['ru', 'en'] as const;
export type PageLang = (typeof PAGE_LANGS)[number];

type Words = { heading: string; badge: string };

/** What the buyer reads in Russian; English has the same fields. Plain text: the page escapes each string. */
const ru = {
  testTag: 'Тестовый платёж · симулятор',
  referenceTag: 'Эталонный сервис',
  shop: 'Магазин',
  order: 'Заказ',
  description: 'Описание',
  status: 'Статус',
  payment: 'Платёж',
  pay: (money: string) => `Оплатить ${money}`,
  decline: 'Отказаться',
  // Around the planned outcome's words: before + outcome + after.
  planned: ['Исход при оплате: ', '. Деньги не списываются.'] as [before: string, after: string],
  // The planned outcome of a test payment (outcomes.ts), in the buyer's words: never the raw enum value.
  outcomes: {
    succeeded: 'банк подтвердит платёж',
    failed: 'банк отклонит платёж',
    refused: 'банк сразу откажет',
    expired: 'банк не ответит, и срок платежа истечёт',
    processing_then_succeeded: 'банк подтвердит платёж через 30 секунд',
  } as Record<string, string>,
  unknownOutcome: 'не указан',
  // A pay or decline posted from another site (a forged form): refused, nothing done.
  crossSite:
    'Запрос пришёл с другого сайта и не выполнен: ничего не изменилось. Воспользуйтесь кнопками на этой странице.',
  waiting: 'Банк подтверждает платёж; страница обновится сама.',
  canClose: 'Эту страницу можно закрыть.',
  back: 'Вернуться в магазин',
  notFoundTitle: 'Платёж не найден',
  notFoundMessage:
    'По этому адресу платежа нет. Проверьте ссылку или вернитесь в магазин и начните оформление заново.',
  // The notice when a button press was refused because the payment is no longer pending.
  notPending: (status: string) =>
    `Платёж уже не ожидает оплаты: ${status.toLowerCase()}. Ничего не изменилось.`,
  // Heading and badge per payment status (the spec's enum).
  statuses: {
    pending: { heading: 'Оплатите заказ', badge: 'Ожидает оплаты' },
    processing: { heading: 'Платёж обрабатывается', badge: 'Обрабатывается' },
    succeeded: { heading: 'Платёж прошёл', badge: 'Оплачен' },
    failed: { heading: 'Платёж отклонён', badge: 'Отклонён' },
    expired: { heading: 'Срок действия ссылки истёк', badge: 'Срок истёк' },
    cancelled: { heading: 'Платёж отменён', badge: 'Отменён' },
    refunded: { heading: 'Платёж возвращён', badge: 'Возвращён' },
  } as Record<string, Words>,
  unknownStatus: { heading: 'Статус платежа', badge: 'Неизвестен' },
};

export const TEXT: Record<PageLang, typeof ru> = {
  ru,
  en: {
    testTag: 'Test payment · simulator',
    referenceTag: 'Reference service',
    shop: 'Store',
    order: 'Order',
    description: 'Description',
    status: 'Status',
    payment: 'Payment',
    pay: (money) => `Pay ${money}`,
    decline: 'Decline',
    planned: ['Planned outcome when paid: ', '. No money moves.'],
    outcomes: {
      succeeded: 'the bank confirms the payment',
      failed: 'the bank declines the payment',
      refused: 'the bank refuses it at once',
      expired: 'the bank never answers and the payment expires',
      processing_then_succeeded: 'the bank confirms the payment 30 seconds later',
    },
    unknownOutcome: 'not stated',
    crossSite:
      'This request came from another site and was not carried out: nothing changed. Use the buttons on this page.',
    waiting: 'The bank is confirming the payment; this page updates by itself.',
    canClose: 'You can close this page.',
    back: 'Return to the store',
    notFoundTitle: 'Payment not found',
    notFoundMessage:
      'There is no payment at this address. Check the link you were given, or go back to the store and start again.',
    notPending: (status) =>
      `This payment is no longer awaiting payment: ${status.toLowerCase()}. Nothing changed.`,
    statuses: {
      pending: { heading: 'Complete your payment', badge: 'Awaiting payment' },
      processing: { heading: 'Your payment is being processed', badge: 'Processing' },
      succeeded: { heading: 'Payment successful', badge: 'Paid' },
      failed: { heading: 'Payment declined', badge: 'Declined' },
      expired: { heading: 'This payment link has expired', badge: 'Expired' },
      cancelled: { heading: 'Payment cancelled', badge: 'Cancelled' },
      refunded: { heading: 'Payment refunded', badge: 'Refunded' },
    },
    unknownStatus: { heading: 'Payment status', badge: 'Unknown' },
  },
};

/** Heading and badge of `status` in `lang`; a status outside the spec's enum gets neutral words, never its raw value. */
export function statusWords(status: string, lang: PageLang): Words {
  const text = TEXT[lang];
  return Object.hasOwn(text.statuses, status) ? text.statuses[status]! : text.unknownStatus;
}

/** The planned outcome of a test payment in `lang`; one outside outcomes.ts gets neutral words, never its raw value. */
export function outcomeWords(outcome: string, lang: PageLang): string {
  const text = TEXT[lang];
  return Object.hasOwn(text.outcomes, outcome) ? text.outcomes[outcome]! : text.unknownOutcome;
}

/**
 * `'ru'` or `'en'` when `value` (the `lang` query parameter) names one, case-insensitively, else undefined.
 *
 * @example forcedLang('EN') // 'en'
 */
export function forcedLang(value: string | undefined): PageLang | undefined {
  const v = value?.toLowerCase();
  return PAGE_LANGS.find((l) => l === v);
}
